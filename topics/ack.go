package topics

import (
	"fmt"
	"strconv"
	"time"
)

// AckCode is a command acknowledgement code (SalRetCode on the wire).
type AckCode int32

// The ack codes of ts_salobj.
const (
	CmdAck        AckCode = 300
	CmdInProgress AckCode = 301
	CmdStalled    AckCode = 302
	CmdComplete   AckCode = 303
	CmdNoPerm     AckCode = -300
	CmdNoAck      AckCode = -301
	CmdFailed     AckCode = -302
	CmdAborted    AckCode = -303
	CmdTimeout    AckCode = -304
)

var ackNames = map[AckCode]string{
	CmdAck: "CMD_ACK", CmdInProgress: "CMD_INPROGRESS", CmdStalled: "CMD_STALLED", CmdComplete: "CMD_COMPLETE",
	CmdNoPerm: "CMD_NOPERM", CmdNoAck: "CMD_NOACK", CmdFailed: "CMD_FAILED", CmdAborted: "CMD_ABORTED", CmdTimeout: "CMD_TIMEOUT",
}

// String returns the reference's name, e.g. "CMD_COMPLETE".
func (c AckCode) String() string {
	if s, ok := ackNames[c]; ok {
		return s
	}
	return "AckCode(" + strconv.Itoa(int(c)) + ")"
}

// Final reports whether the code ends a command: ABORTED, COMPLETE,
// FAILED, NOACK, NOPERM, STALLED or TIMEOUT.
func (c AckCode) Final() bool {
	switch c {
	case CmdAborted, CmdComplete, CmdFailed, CmdNoAck, CmdNoPerm, CmdStalled, CmdTimeout:
		return true
	}
	return false
}

// Failed reports whether the code is final and not COMPLETE.
func (c AckCode) Failed() bool { return c.Final() && c != CmdComplete }

// Ack is one command acknowledgement (an ackcmd record).
type Ack struct {
	Code AckCode
	// Error is an error code, relevant when Code is a failure (1 from the reference's CSCs).
	Error int32
	// Result is the message, e.g. "Done" or "Failed: ...".
	Result string
	// Timeout is the estimated remaining duration of an in-progress command.
	Timeout time.Duration
	// SeqNum, Identity and Origin identify the command acknowledged.
	SeqNum   int32
	Identity string
	Origin   int32
	// CmdType is the index of the command in the sorted SAL topic names.
	CmdType int32
	// SALIndex of the acknowledging CSC.
	SALIndex int32
	// Record is the ackcmd record, when the ack came from the bus.
	Record map[string]any
}

// String renders the ack as the reference prints it.
func (a *Ack) String() string {
	if a == nil {
		return "<nil ack>"
	}
	s := fmt.Sprintf("ackcmd(seqNum=%d, ack=%s, error=%d, result=%q", a.SeqNum, a.Code, a.Error, a.Result)
	if a.Code == CmdInProgress {
		s += fmt.Sprintf(", timeout=%s", a.Timeout)
	}
	return s + ")"
}

// AckFromRecord reads an ackcmd record (the ack a Remote receives).
func AckFromRecord(rec map[string]any) *Ack {
	a := &Ack{Record: rec}
	if v, ok := rec["ack"].(int32); ok {
		a.Code = AckCode(v)
	}
	a.Error, _ = rec["error"].(int32)
	a.Result, _ = rec["result"].(string)
	if v, ok := rec["timeout"].(float64); ok && v > 0 {
		a.Timeout = time.Duration(v * float64(time.Second))
	}
	a.SeqNum, _ = rec["private_seqNum"].(int32)
	a.Identity, _ = rec["identity"].(string)
	a.Origin, _ = rec["origin"].(int32)
	a.CmdType, _ = rec["cmdtype"].(int32)
	a.SALIndex, _ = rec["salIndex"].(int32)
	return a
}

// AckFields returns the public ackcmd fields of a (not the private ones):
// the record a Controller writes.
func AckFields(a *Ack) map[string]any {
	// Room for the private fields the writer adds, so that the map does
	// not grow (and rehash) on the way out.
	m := make(map[string]any, ackFieldsCap)
	m["ack"], m["error"], m["result"] = int32(a.Code), a.Error, a.Result
	m["identity"], m["origin"], m["cmdtype"] = a.Identity, a.Origin, a.CmdType
	m["timeout"] = a.Timeout.Seconds()
	return m
}

// ackFieldsCap is the size hint of an ack's record: its public fields,
// salIndex and the private fields of ts_xml's ackcmd.
const ackFieldsCap = 20
