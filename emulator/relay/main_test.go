package relay

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// The fleet runs the relay at real-time priority (chrt -f 10) so that other load on the host
// does not delay its packets; the tests do the same where they may, so that what they measure
// is the relay and not the host's other work. Threads made later inherit the policy.
func TestMain(m *testing.M) {
	if err := useRealtimePriority(10); err != nil {
		fmt.Fprintf(os.Stderr, "relay tests: not at real-time priority (%v); other load on the host may show in the timings\n", err)
	}
	os.Exit(m.Run())
}

func useRealtimePriority(priority int32) error {
	const schedFIFO = 1
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	param := struct{ priority int32 }{priority}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		_, _, errno := syscall.Syscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedFIFO, uintptr(unsafe.Pointer(&param)))
		if errno != 0 {
			return os.NewSyscallError("sched_setscheduler", errno)
		}
	}
	return nil
}
