package controller

import (
	"log/slog"

	"github.com/lsst-sal/salgo/validate"
)

// admit says whether a received command whose record Check reported rep
// for is handled. ts_salobj does not bound strings over Kafka, so a Python
// Remote may send strings longer than their IDL_Size and a Python CSC
// accepts them: so does a Controller, counting them (Stats.LongStrings)
// and logging once per interval. Any other violation (a string that is not
// UTF-8, an array of the wrong length, a missing or mistyped field) is
// something ts_salobj cannot read either: refused.
func (c *Controller) admit(cmd *Command, rep validate.Report) bool {
	if rep.OK() {
		return true
	}
	if rep.Total() != rep.StringLength {
		return false
	}
	c.stats.longStrings.Add(1)
	c.rl.Log(slog.LevelWarn, "strlen:"+cmd.Name, "controller: command holds strings longer than their IDL_Size; handled, as ts_salobj does",
		"controller", c.Name(), "command", cmd.Name, "seqNum", cmd.SeqNum, "identity", cmd.Identity, "report", rep.String())
	return true
}
