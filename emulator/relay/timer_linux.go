package relay

import (
	"math"
	"os"
	"syscall"
	"unsafe"
)

// dueTimer is a timerfd in the event loop's epoll set that fires when the earliest held packet
// is due. It replaces a timeout on every wait: epoll_pwait2 armed an hrtimer on each call and
// cancelled it on each early return (a socket woke it first), about two arm/cancel pairs per
// datagram, and on a VM programming the timer is a VM exit. A timerfd is set only when the
// earliest due time changes, and the wait itself needs no timer.
//
// It is absolute on CLOCK_MONOTONIC, the clock under Go's monotonic time, so a due time on the
// relay's clock converts by a constant offset and a late set does not shift the expiry.
type dueTimer struct {
	fd int
	// offset is CLOCK_MONOTONIC minus the relay's clock (now).
	offset int64
	// armed is the pending expiry on the relay's clock; noDue when none is pending.
	armed int64
}

const noDue = math.MaxInt64

// itimerspec is the kernel's struct itimerspec: a repeat interval (always zero here), then the
// expiry.
type itimerspec struct {
	interval, value syscall.Timespec
}

const (
	clockMonotonic  = 1
	tfdTimerAbstime = 1
)

func newDueTimer() (dueTimer, error) {
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errno != 0 {
		return dueTimer{}, os.NewSyscallError("timerfd_create", errno)
	}
	offset, err := monotonicOffset()
	if err != nil {
		syscall.Close(int(fd))
		return dueTimer{}, err
	}
	return dueTimer{fd: int(fd), offset: offset, armed: noDue}, nil
}

// monotonicOffset reads CLOCK_MONOTONIC between two readings of the relay's clock, keeping the
// tightest of a few tries, so the offset is good to well under a microsecond.
func monotonicOffset() (int64, error) {
	best, offset := int64(math.MaxInt64), int64(0)
	for range 5 {
		var ts syscall.Timespec
		before := now()
		_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
		after := now()
		if errno != 0 {
			return 0, os.NewSyscallError("clock_gettime", errno)
		}
		if after-before < best {
			best, offset = after-before, ts.Nano()-(before+after)/2
		}
	}
	return offset, nil
}

// set makes the timer fire at due on the relay's clock, or never for noDue. Setting also clears
// an expiry not yet read (timerfd_settime resets the count that makes the fd readable), so
// after a set the fired timer needs no read.
func (t *dueTimer) set(due int64) {
	var spec itimerspec
	if due != noDue {
		// A zero expiry would disarm; a due time already past fires at once.
		spec.value = syscall.NsecToTimespec(max(due+t.offset, 1))
	}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(t.fd), tfdTimerAbstime,
		uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	if errno != 0 {
		logLoopError("timerfd_settime", errno)
		return
	}
	t.armed = due
}

// drain reads a fired timer's expiry count so that the level-triggered epoll set stops
// reporting it.
func (t *dueTimer) drain() {
	var count uint64
	syscall.RawSyscall(syscall.SYS_READ, uintptr(t.fd), uintptr(unsafe.Pointer(&count)), 8)
}

func (t *dueTimer) close() { syscall.Close(t.fd) }
