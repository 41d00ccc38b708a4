package relay

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// A test process that was started as a child relay (child_test.go) relays and exits; otherwise
// the tests run at normal priority, as the fleet's clients do. A test that judges the relay's
// timing under load runs it as a child at fb-wan's real-time priority.
func TestMain(m *testing.M) {
	if runChildRelayIfAsked() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// useRealtimePriority puts every thread of this process at SCHED_FIFO priority; threads made
// later inherit it.
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
