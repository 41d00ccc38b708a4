package relay

import (
	"os"
	"syscall"
	"unsafe"
)

// wakeTimer is a Linux timerfd read through Go's poller. Go's own timers wake up to ~1 ms late
// (the runtime's epoll wait has millisecond resolution), which alone would break the precision
// target for short links; a timerfd fires within tens of microseconds, measured here, and a
// goroutine blocked on it holds no OS thread.
type wakeTimer struct {
	fd   uintptr
	file *os.File
	buf  [8]byte
}

type itimerspec struct {
	interval syscall.Timespec
	value    syscall.Timespec
}

func newWakeTimer() (*wakeTimer, error) {
	const clockMonotonic = 1
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic,
		syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, os.NewSyscallError("timerfd_create", errno)
	}
	// A non-blocking descriptor makes os.File use the poller. Never call file.Fd(): it would put
	// the descriptor back in blocking mode.
	return &wakeTimer{fd: fd, file: os.NewFile(fd, "timerfd")}, nil
}

// arm makes wait return after ns nanoseconds (at least 1: a zero timerfd value disarms it).
// The caller serialises arm with close.
func (t *wakeTimer) arm(ns int64) {
	spec := itimerspec{value: syscall.NsecToTimespec(max(ns, 1))}
	// Cannot fail for a valid descriptor and value; a closed timer no longer matters.
	syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// wait blocks until the timer has fired; it returns an error once the timer is closed.
func (t *wakeTimer) wait() error {
	_, err := t.file.Read(t.buf[:])
	return err
}

func (t *wakeTimer) close() { t.file.Close() }
