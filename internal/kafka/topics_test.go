package kafka_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/internal/kafka"
)

// TestWatermarks_AfterEnsureTopics: the watermarks of topics created
// moments ago by the same producer are listed at the first attempt, for
// every round of creations (a Domain creates topics for each Instance it
// starts). EnsureTopics first asks which topics exist, franz-go caches
// that answer ("does not exist") for its metadata minimum age (5 s), and
// kadm's listings read that cache: without a refresh after the creation,
// every round but the first failed with UNKNOWN_TOPIC_OR_PARTITION.
func TestWatermarks_AfterEnsureTopics(t *testing.T) {
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := kafka.NewProducer(kafka.Config{Brokers: c.Brokers(), Acks: "1", NoClientMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	for round := range 3 {
		names := []string{fmt.Sprintf("lsst.test%d.a", round), fmt.Sprintf("lsst.test%d.b", round)}
		specs := []kafka.TopicSpec{{Name: names[0], Partitions: 1, Configs: map[string]string{"cleanup.policy": "compact"}}, {Name: names[1], Partitions: 2}}
		if err := p.EnsureTopics(ctx, specs); err != nil {
			t.Fatal(err)
		}
		marks, err := p.Watermarks(ctx, names...)
		if err != nil {
			t.Fatalf("round %d: watermarks of topics just created: %v", round, err)
		}
		for i, n := range names {
			if got, want := len(marks[n]), int(specs[i].Partitions); got != want {
				t.Errorf("%s: %d partitions listed, want %d", n, got, want)
			}
			for part, w := range marks[n] {
				if w.Low != 0 || w.High != 0 {
					t.Errorf("%s[%d]: watermarks %+v of an empty partition, want 0, 0", n, part, w)
				}
			}
		}
	}
}
