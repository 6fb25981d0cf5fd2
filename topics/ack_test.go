package topics_test

import (
	"testing"

	"github.com/lsst-sal/salgo/topics"
)

func TestAckCode_Classes(t *testing.T) {
	for _, c := range []topics.AckCode{topics.CmdAborted, topics.CmdComplete, topics.CmdFailed, topics.CmdNoAck, topics.CmdNoPerm, topics.CmdStalled, topics.CmdTimeout} {
		if !c.Final() {
			t.Errorf("%s not final", c)
		}
		if c.Failed() != (c != topics.CmdComplete) {
			t.Errorf("%s failed=%v", c, c.Failed())
		}
	}
	for _, c := range []topics.AckCode{topics.CmdAck, topics.CmdInProgress} {
		if c.Final() || c.Failed() {
			t.Errorf("%s is final", c)
		}
	}
	if topics.CmdInProgress.String() != "CMD_INPROGRESS" || topics.AckCode(5).String() != "AckCode(5)" {
		t.Error("names")
	}
}
