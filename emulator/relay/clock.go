package relay

import "time"

var epoch = time.Now()

// now is the relay's clock: monotonic nanoseconds since the process started.
func now() int64 { return int64(time.Since(epoch)) }

const (
	nsPerMs = int64(time.Millisecond)
)

func msToNs(ms float64) int64 { return int64(ms * float64(nsPerMs)) }
