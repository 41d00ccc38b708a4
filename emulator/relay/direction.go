package relay

import (
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Bounds on what a direction holds.
//
// With a rate cap, a packet is dropped ("queue") when it would wait more than
// max(20 ms, the time to send 64 KiB at the rate, the link's round-trip delay) before its
// serialisation starts. The last term is the classic one-bandwidth-delay-product router buffer:
// with less, one TCP flow (Reno, CUBIC) backs off below the cap after each drop and iperf3 would
// measure less than the configured rate. The first two keep short links and slow rates from
// dropping ordinary bursts. The price is the usual one: a saturated link adds up to one RTT of
// queueing delay, as a real bottleneck with such a buffer does.
//
// Without a cap nothing queues, but delayed packets are held in memory, so any direction holds
// at most 64 MiB of payload; beyond that arrivals are dropped ("queue").
const (
	minBacklogNs     = 20 * nsPerMs
	minBacklogBytes  = 64 << 10
	maxInFlightBytes = 64 << 20
)

// Packet buffers: datagrams up to bufSize (WireGuard's are ~1.5 KB) reuse a free list.
const (
	bufSize     = 2048
	maxFreeBufs = 4096
	maxBatch    = 64
)

// DropCounts counts dropped datagrams by reason.
type DropCounts struct {
	Cut     uint64 `json:"cut"`
	Loss    uint64 `json:"loss"`
	Queue   uint64 `json:"queue"`
	Foreign uint64 `json:"foreign"`
	// Send counts datagrams the kernel refused to send.
	Send uint64 `json:"send"`
}

// DirectionStats is a direction's current shaping and its counters since start.
type DirectionStats struct {
	DelayMs     float64  `json:"delayMs"`
	RateMbps    *float64 `json:"rateMbps"`
	LossPercent float64  `json:"lossPercent"`
	// Packets and Bytes count forwarded datagrams and their UDP payload bytes.
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"`
	// Queued is how many datagrams are held right now (queued or in propagation).
	Queued int        `json:"queued"`
	Drops  DropCounts `json:"drops"`
}

// direction is one way of a link. Receivers call enqueue; one scheduler goroutine (run) sleeps
// until the oldest packet is due and sends it. Departure times never decrease, so the queue is
// FIFO and the scheduler only ever waits for its head.
type direction struct {
	out   *net.UDPConn
	to    netip.AddrPort
	timer *wakeTimer

	mu        sync.Mutex
	shaping   Shaping
	delayNs   int64
	nsPerByte float64 // serialisation time per payload byte; 0 when uncapped
	lossProb  float64
	linkRTTNs int64 // both directions' delays: sizes the rate-capped queue
	cut       bool
	closed    bool
	busyUntil int64 // when the serialiser finishes the last accepted packet
	lastDue   int64
	inFlight  int // payload bytes held
	queue     packetQueue
	free      [][]byte
	rng       *rand.Rand

	forwarded, forwardedBytes                                  atomic.Uint64
	dropCut, dropLoss, dropQueue, dropForeign, dropSendFailure atomic.Uint64
}

func newDirection(out *net.UDPConn, to netip.AddrPort, s Shaping) (*direction, error) {
	timer, err := newWakeTimer()
	if err != nil {
		return nil, err
	}
	d := &direction{out: out, to: to, timer: timer, rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
	d.apply(Change{DelayMs: &s.DelayMs, SetRate: true, RateMbps: s.RateMbps, LossPercent: &s.LossPercent})
	return d, nil
}

// apply changes the shaping of packets arriving from now on; a validated change is expected.
func (d *direction) apply(c Change) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.DelayMs != nil {
		d.shaping.DelayMs = *c.DelayMs
		d.delayNs = msToNs(*c.DelayMs)
	}
	if c.SetRate {
		if c.RateMbps == nil || *c.RateMbps == 0 {
			d.shaping.RateMbps, d.nsPerByte = nil, 0
		} else {
			rate := *c.RateMbps
			// 1 Mbit/s sends one bit per 1000 ns.
			d.shaping.RateMbps, d.nsPerByte = &rate, 8*1000/rate
		}
	}
	if c.LossPercent != nil {
		d.shaping.LossPercent = *c.LossPercent
		d.lossProb = *c.LossPercent / 100
	}
}

func (d *direction) delay() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.delayNs
}

func (d *direction) setLinkRTT(ns int64) {
	d.mu.Lock()
	d.linkRTTNs = ns
	d.mu.Unlock()
}

// enqueue takes a datagram that arrived at time at; data is copied.
func (d *direction) enqueue(data []byte, at int64) {
	n := len(data)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.cut || d.closed:
		d.dropCut.Add(1)
		return
	case d.lossProb > 0 && d.rng.Float64() < d.lossProb:
		d.dropLoss.Add(1)
		return
	case d.inFlight+n > maxInFlightBytes:
		d.dropQueue.Add(1)
		return
	}
	depart := at
	if d.nsPerByte > 0 {
		start := max(at, d.busyUntil)
		limit := max(minBacklogNs, int64(minBacklogBytes*d.nsPerByte), d.linkRTTNs)
		if start-at > limit {
			d.dropQueue.Add(1)
			return
		}
		d.busyUntil = start + int64(float64(n)*d.nsPerByte)
		depart = d.busyUntil
	}
	// A delay cut while packets are held must not let newer ones overtake them.
	due := max(depart+d.delayNs, d.lastDue)
	d.lastDue = due
	if d.queue.len() == 0 {
		d.timer.arm(due - now())
	}
	d.queue.push(packet{data: d.copyIn(data), due: due})
	d.inFlight += n
}

// run sends packets as they fall due until the direction is closed.
func (d *direction) run() {
	batch := make([]packet, 0, maxBatch)
	for d.timer.wait() == nil {
		d.mu.Lock()
		t := now()
		for d.queue.len() > 0 && d.queue.front().due <= t && len(batch) < maxBatch {
			p := d.queue.pop()
			d.inFlight -= len(p.data)
			batch = append(batch, p)
		}
		if d.queue.len() > 0 && !d.closed {
			d.timer.arm(d.queue.front().due - t)
		}
		d.mu.Unlock()

		for _, p := range batch {
			if _, err := d.out.WriteToUDPAddrPort(p.data, d.to); err != nil {
				d.dropSendFailure.Add(1)
				continue
			}
			d.forwarded.Add(1)
			d.forwardedBytes.Add(uint64(len(p.data)))
		}

		d.mu.Lock()
		for i := range batch {
			d.release(batch[i].data)
			batch[i] = packet{}
		}
		d.mu.Unlock()
		batch = batch[:0]
	}
}

// setCut stops (or resumes) forwarding; cutting also drops everything held.
func (d *direction) setCut(cut bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = cut
	if !cut {
		return
	}
	for d.queue.len() > 0 {
		d.release(d.queue.pop().data)
		d.dropCut.Add(1)
	}
	d.inFlight, d.busyUntil, d.lastDue = 0, 0, 0
}

func (d *direction) isCut() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cut
}

func (d *direction) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	d.timer.close()
}

func (d *direction) stats() DirectionStats {
	d.mu.Lock()
	s := DirectionStats{DelayMs: d.shaping.DelayMs, LossPercent: d.shaping.LossPercent, Queued: d.queue.len()}
	if d.shaping.RateMbps != nil {
		rate := *d.shaping.RateMbps
		s.RateMbps = &rate
	}
	d.mu.Unlock()
	s.Packets, s.Bytes = d.forwarded.Load(), d.forwardedBytes.Load()
	s.Drops = DropCounts{
		Cut: d.dropCut.Load(), Loss: d.dropLoss.Load(), Queue: d.dropQueue.Load(),
		Foreign: d.dropForeign.Load(), Send: d.dropSendFailure.Load(),
	}
	return s
}

// copyIn copies a datagram into a held buffer; the caller holds mu.
func (d *direction) copyIn(data []byte) []byte {
	var buf []byte
	switch {
	case len(data) > bufSize:
		buf = make([]byte, len(data))
	case len(d.free) > 0:
		buf = d.free[len(d.free)-1]
		d.free = d.free[:len(d.free)-1]
	default:
		buf = make([]byte, bufSize)
	}
	buf = buf[:len(data)]
	copy(buf, data)
	return buf
}

// release returns a buffer to the free list; the caller holds mu.
func (d *direction) release(buf []byte) {
	if cap(buf) == bufSize && len(d.free) < maxFreeBufs {
		d.free = append(d.free, buf[:0])
	}
}
