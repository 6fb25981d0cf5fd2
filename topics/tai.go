package topics

import "time"

// taiMinusUTC is TAI-UTC in seconds: 37 since 2017-01-01 (IERS Bulletin C
// announced no leap second since).
const taiMinusUTC = 37

// TAI returns the current TAI time as Unix seconds, as ts_salobj's
// current_tai does.
func TAI() float64 { return UTCToTAI(now()) }

// UTCToTAI converts a time to TAI Unix seconds.
func UTCToTAI(t time.Time) float64 { return float64(t.UnixNano())/1e9 + taiMinusUTC }

// TAIToUTC converts TAI Unix seconds to UTC Unix seconds (private_efdStamp).
func TAIToUTC(tai float64) float64 { return tai - taiMinusUTC }

var now = time.Now
