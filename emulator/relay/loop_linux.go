package relay

import (
	"log"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// eventLoop is the relay's whole data path on one goroutine: it waits for a datagram on any
// socket or for the earliest held packet to fall due, receives, and sends what is due.
//
// Why not a goroutine per socket and per direction on Go's poller, as before: per datagram that
// cost ~14 system calls and ~6 thread wake-ups (the runtime's sysmon parked and was woken around
// each one; the receiver and the timer goroutine met through the poller), about 170 us of CPU
// per datagram on this 2-core host, five times what tincd spends relaying the same datagram.
// Here a datagram costs two waits, one receive and one send.
//
// The wait is epoll_pwait2 made as a raw system call: the runtime neither hands the goroutine's P
// to another thread nor wakes sysmon around it. The price is that this goroutine keeps its P while
// it waits, so the process needs another P for the control socket (fb-wan runs with GOMAXPROCS
// 2). The runtime's preemption signal and a GC still interrupt the wait (EINTR), so the loop
// yields when asked. The wait has no timeout: held packets fall due through a timerfd in the
// epoll set (timer_linux.go says why), and a packet due within sendSlack is sent at once.
type eventLoop struct {
	epfd   int
	wakeFd int // an eventfd: Close writes it to end the wait
	timer  dueTimer
	ends   []end
	// active holds the directions that may hold packets; only the loop touches it.
	active  []*direction
	nextDue int64
	closing atomic.Bool
	done    chan struct{}
}

// sysEpollPwait2 is epoll_pwait2's number on amd64 and arm64 (Linux 5.11+); the syscall package
// predates it.
const sysEpollPwait2 = 441

const (
	maxEvents = 64
	// maxReceives bounds the datagrams taken from one socket per wake, so one busy link cannot
	// keep the loop from sending what is due on the others.
	maxReceives = 32
	wakeIndex   = -1
	timerIndex  = -2
)

// sendSlack is how early a packet may leave: what is due within it of now is sent now rather
// than after another sleep and wake-up (a context switch and a timer interrupt, VM exits on a
// VM). Why 50 us: a timer wake-up itself lands late, measured on the fleet's 2-core VM at 40 us
// (p10) / 65 us (p50) / 145 us (p99) after the due time, or 24 / 38 / 104 us with the relay
// sharing its CPU with the senders (cpu_bench_test.go). So a packet sent up to 50 us early is
// typically no further from its due time than it would be after a wake-up of its own. The price
// in precision: a packet may leave up to sendSlack early, a round trip up to 2*sendSlack (0.1
// ms) short, within the emulator's RTT tolerance of max(0.5 ms, 2 %).
const sendSlack = 50 * 1000

func newEventLoop(ends []end) (*eventLoop, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	wakeFd, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errno != 0 {
		syscall.Close(epfd)
		return nil, os.NewSyscallError("eventfd2", errno)
	}
	timer, err := newDueTimer()
	if err != nil {
		syscall.Close(epfd)
		syscall.Close(int(wakeFd))
		return nil, err
	}
	l := &eventLoop{epfd: epfd, wakeFd: int(wakeFd), timer: timer, ends: ends, nextDue: noDue, done: make(chan struct{})}
	add := func(fd, index int) error {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(index)}
		return os.NewSyscallError("epoll_ctl", syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, fd, &ev))
	}
	err = add(l.wakeFd, wakeIndex)
	if err == nil {
		err = add(l.timer.fd, timerIndex)
	}
	for i := 0; i < len(ends) && err == nil; i++ {
		err = add(ends[i].sock.fd, i)
	}
	if err != nil {
		l.closeFds()
		return nil, err
	}
	return l, nil
}

func (l *eventLoop) run() {
	defer close(l.done)
	batch := newRecvBatch()
	events := make([]syscall.EpollEvent, maxEvents)
	for !l.closing.Load() {
		n := l.wait(events)
		fired := false
		for _, ev := range events[:n] {
			switch ev.Fd {
			case wakeIndex:
			case timerIndex:
				fired = true
			default:
				l.receive(&l.ends[ev.Fd], batch)
			}
		}
		l.sendDue()
		l.followDue(fired)
	}
}

// wait blocks until a socket is readable, the timer fires, or Close; it returns how many events
// it filled. When a packet is due already (more were due than one batch), it only polls.
func (l *eventLoop) wait(events []syscall.EpollEvent) int {
	var timeout *syscall.Timespec
	if l.nextDue-now() <= sendSlack {
		timeout = &syscall.Timespec{}
	}
	n, _, errno := syscall.RawSyscall6(sysEpollPwait2, uintptr(l.epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(unsafe.Pointer(timeout)), 0, 0)
	if errno != 0 {
		if errno != syscall.EINTR {
			logLoopError("epoll_pwait2", errno)
		}
		return 0
	}
	return int(n)
}

// followDue sets the timer for the earliest held packet when that changed; fired says the timer
// was reported readable in this wake.
func (l *eventLoop) followDue(fired bool) {
	if fired {
		// One-shot: once fired, nothing is pending, but the fd stays readable until read or set.
		l.timer.armed = noDue
	}
	due := l.nextDue
	if due != l.timer.armed && (due == noDue || due-now() > sendSlack) {
		l.timer.set(due)
		return
	}
	if fired {
		l.timer.drain()
	}
}

func logLoopError(call string, errno syscall.Errno) { log.Printf("fb-wan: %s: %v", call, errno) }

// receive takes what the end's peer sent into the direction that leaves by the other end.
func (l *eventLoop) receive(e *end, b *recvBatch) {
	for calls := 0; calls < maxReceives/recvBatchLen; calls++ {
		n, errno := e.sock.recvMany(b)
		if errno == syscall.EAGAIN || errno == syscall.EINTR {
			return
		}
		if errno != 0 {
			// ICMP errors from an earlier send (the peer's port closed) surface here; not fatal.
			continue
		}
		for i := range n {
			if b.from[i].addrPort() != e.peer {
				e.into.dropForeign.Add(1)
				continue
			}
			if e.into.enqueue(b.bufs[i][:b.sizes[i]], now()) && !e.into.active {
				e.into.active = true
				l.active = append(l.active, e.into)
			}
		}
		if n < recvBatchLen {
			return // fewer than asked for: the socket is drained
		}
	}
}

// sendDue sends every held packet due within sendSlack and works out when the next one is.
func (l *eventLoop) sendDue() {
	t := now() + sendSlack
	next := int64(noDue)
	kept := l.active[:0]
	for _, d := range l.active {
		if due, holding := d.sendDue(t); holding {
			kept = append(kept, d)
			next = min(next, due)
		} else {
			d.active = false
		}
	}
	clear(l.active[len(kept):])
	l.active, l.nextDue = kept, next
}

// close ends the loop and waits for it; the loop's descriptors are closed after it returned.
func (l *eventLoop) close() {
	l.closing.Store(true)
	one := uint64(1)
	syscall.Write(l.wakeFd, (*[8]byte)(unsafe.Pointer(&one))[:])
	<-l.done
	l.closeFds()
}

func (l *eventLoop) closeFds() {
	syscall.Close(l.epfd)
	syscall.Close(l.wakeFd)
	l.timer.close()
}
