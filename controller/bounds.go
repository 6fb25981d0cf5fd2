package controller

import (
	"log/slog"
	"strconv"
	"unicode/utf8"

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

// MaxText bounds each text the SDK composes from errors and received
// input into a record it writes: an ack's result, a logMessage's message
// and traceback, errorCode's errorReport and traceback, a script's
// reason. A longer text is cut at a character boundary and ends with
// " ... [cut: N more bytes]". A handler's error may quote what anyone on
// the bus sent (a command's strings, a configuration): uncut, a record
// could exceed Kafka's message size (1 MB by default), and the ack
// would never reach the commander, who would wait for its timeout.
// ts_salobj does not cut; it fails to write such a record. Texts up to
// MaxText are written as they are.
const MaxText = 256 << 10

// capText returns s cut to MaxText bytes (see MaxText).
func capText(s string) string {
	if len(s) <= MaxText {
		return s
	}
	const room = MaxText - 40 // the note fits in the rest
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " ... [cut: " + strconv.Itoa(len(s)-cut) + " more bytes]"
}
