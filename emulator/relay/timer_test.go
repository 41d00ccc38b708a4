package relay

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The event loop relies on the timer firing at a due time on the relay's clock, and on a set
// clearing an expiry that was not read (so that a fired timer it re-arms needs no read).
func TestDueTimerFiresAtTheDueTimeAndASetClearsIt(t *testing.T) {
	timer, err := newDueTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer timer.close()
	expirations := func() (uint64, syscall.Errno) {
		var n uint64
		_, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(timer.fd), uintptr(unsafe.Pointer(&n)), 8)
		return n, errno
	}

	due := now() + 20*nsPerMs
	timer.set(due)
	for now() < due-2*nsPerMs {
		if _, errno := expirations(); errno != syscall.EAGAIN {
			t.Fatalf("fired %.1f ms before its due time", float64(due-now())/1e6)
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(time.Until(time.Now().Add(time.Duration(due-now()) + 5*time.Millisecond)))
	if n, errno := expirations(); errno != 0 || n != 1 {
		t.Fatalf("5 ms after its due time: %d expirations, %v", n, errno)
	}

	timer.set(now() - nsPerMs) // past: fires at once
	time.Sleep(time.Millisecond)
	timer.set(noDue)
	if _, errno := expirations(); errno != syscall.EAGAIN {
		t.Fatalf("a fired timer was still readable after it was disarmed (%v)", errno)
	}
}
