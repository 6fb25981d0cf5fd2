package kafka

// OptValue is the value of a franz-go option of p's client (kgo.Client.OptValue).
func OptValue(p *Producer, opt any) any { return p.cl.OptValue(opt) }

// ConsumerOptValue is OptValue for a consumer.
func ConsumerOptValue(c *Consumer, opt any) any { return c.cl.OptValue(opt) }
