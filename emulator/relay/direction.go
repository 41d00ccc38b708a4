package relay

import (
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

// LateCounts counts forwarded datagrams by how long after their due time they left: the
// emulator's own error, apart from whatever the host adds before a reply is read. A round trip
// crosses two directions, so a direction late by over 1 ms in more than 1 % of its datagrams
// puts the RTT's p99 past the precision target on its own.
type LateCounts struct {
	Over1Ms  uint64  `json:"over1ms"`
	Over3Ms  uint64  `json:"over3ms"`
	Over10Ms uint64  `json:"over10ms"`
	MaxMs    float64 `json:"maxMs"`
}

// DirectionStats is a direction's current shaping and its counters since start.
type DirectionStats struct {
	DelayMs     float64  `json:"delayMs"`
	RateMbps    *float64 `json:"rateMbps"`
	LossPercent float64  `json:"lossPercent"`
	JitterMs    float64  `json:"jitterMs"`
	// Seed is the seed the loss and jitter draws started from (given, or picked at random), so
	// that a run can store it and be repeated.
	Seed uint64 `json:"seed"`
	// Packets and Bytes count forwarded datagrams and their UDP payload bytes.
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"`
	// Queued is how many datagrams are held right now (queued or in propagation).
	Queued int        `json:"queued"`
	Drops  DropCounts `json:"drops"`
	Late   LateCounts `json:"late"`
	// Cut is true while this direction drops everything (a one-way cut cuts one direction).
	Cut bool `json:"cut"`
}

// direction is one way of a link. The event loop enqueues what arrives and sends each packet when
// it falls due. Departure times never decrease, so the queue is FIFO and only its head is waited
// for. The mutex is for the control socket, which changes shaping and reads counters meanwhile.
//
// Jitter: a packet's one-way delay is drawn from a normal distribution with mean delayMs and
// standard deviation jitterMs, clamped at 0 (it never leaves before it arrived), as netem's
// `delay D J distribution normal` draws it. So the configured delay stays the mean (and median)
// and the configured jitter is the measured standard deviation, as long as delayMs is more than
// about 3 jitterMs; below that the clamp raises the mean and narrows the spread.
type direction struct {
	out *udpSocket
	to  sockaddr
	// active says the event loop is watching this direction's queue; only the loop touches it.
	active bool
	batch  []packet

	mu        sync.Mutex
	shaping   Shaping
	delayNs   int64
	nsPerByte float64 // serialisation time per payload byte; 0 when uncapped
	lossProb  float64
	jitterNs  float64 // standard deviation of the delay; 0 draws nothing
	linkRTTNs int64   // both directions' delays: sizes the rate-capped queue
	cut       bool
	closed    bool
	busyUntil int64 // when the serialiser finishes the last accepted packet
	lastDue   int64
	inFlight  int // payload bytes held
	queue     packetQueue
	free      [][]byte
	draws     draws

	forwarded, forwardedBytes                                  atomic.Uint64
	lateOver1, lateOver3, lateOver10, lateMaxNs                atomic.Uint64
	dropCut, dropLoss, dropQueue, dropForeign, dropSendFailure atomic.Uint64
}

// newDirection makes the direction named stream (its link id and "ab" or "ba"), which seeds its
// draws together with s.Seed.
func newDirection(out *udpSocket, to netip.AddrPort, s Shaping, stream string) *direction {
	d := &direction{out: out, to: sockaddrOf(to)}
	seed := randomSeed()
	if s.Seed != nil {
		seed = uint64(*s.Seed)
	}
	d.draws.init(stream, seed)
	d.apply(Change{DelayMs: &s.DelayMs, SetRate: true, RateMbps: s.RateMbps, LossPercent: &s.LossPercent, JitterMs: &s.JitterMs})
	return d
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
	if c.JitterMs != nil {
		d.shaping.JitterMs = *c.JitterMs
		d.jitterNs = float64(msToNs(*c.JitterMs))
	}
	if c.Seed != nil {
		d.draws.reseed(uint64(*c.Seed))
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

// enqueue takes a datagram that arrived at time at (data is copied); it says whether the
// datagram is held (not dropped).
func (d *direction) enqueue(data []byte, at int64) bool {
	n := len(data)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.cut || d.closed:
		d.dropCut.Add(1)
		return false
	case d.lossProb > 0 && d.draws.rng.Float64() < d.lossProb:
		d.dropLoss.Add(1)
		return false
	}
	// Drawn before the queue decides, so that which packet gets which delay depends only on the
	// packets offered (a repeatable sequence), not on timing.
	delay := d.delayNs
	if d.jitterNs > 0 {
		delay = max(0, delay+int64(d.draws.rng.NormFloat64()*d.jitterNs))
	}
	if d.inFlight+n > maxInFlightBytes {
		d.dropQueue.Add(1)
		return false
	}
	depart := at
	if d.nsPerByte > 0 {
		start := max(at, d.busyUntil)
		limit := max(minBacklogNs, int64(minBacklogBytes*d.nsPerByte), d.linkRTTNs)
		if start-at > limit {
			d.dropQueue.Add(1)
			return false
		}
		d.busyUntil = start + int64(float64(n)*d.nsPerByte)
		depart = d.busyUntil
	}
	// Neither a delay cut while packets are held nor a short jitter draw may let a packet overtake
	// the one before: a packet drawn to leave before its predecessor leaves with it instead.
	// Packets spaced 3 jitterMs or more apart rarely meet, and the measured spread is the
	// configured one (-1.5 % at 3, -5 % at 2, simulated). Closer together the delay becomes the
	// latest of several draws: at a spacing of 1, 0.1 and 0.01 jitterMs the mean rises by 0.2,
	// 1.2 and 2.1 jitterMs and the spread is 84, 58 and 44 % of jitterMs. So a bulk flow on a
	// jittered link sees more delay and less jitter than a sparse probe does on the same link.
	due := max(depart+delay, d.lastDue)
	d.lastDue = due
	d.queue.push(packet{data: d.copyIn(data), due: due})
	d.inFlight += n
	return true
}

// sendDue sends the held packets due by t; it returns when the next one is due and whether any
// is still held.
func (d *direction) sendDue(t int64) (next int64, holding bool) {
	d.mu.Lock()
	for d.queue.len() > 0 && d.queue.front().due <= t && len(d.batch) < maxBatch {
		p := d.queue.pop()
		d.inFlight -= len(p.data)
		d.batch = append(d.batch, p)
	}
	if d.queue.len() > 0 {
		next, holding = d.queue.front().due, true
	}
	d.mu.Unlock()
	if len(d.batch) == 0 {
		return next, holding
	}

	for _, p := range d.batch {
		if errno := d.out.send(p.data, &d.to); errno != 0 {
			d.dropSendFailure.Add(1)
			continue
		}
		d.forwarded.Add(1)
		d.forwardedBytes.Add(uint64(len(p.data)))
		d.countLateness(now() - p.due)
	}

	d.mu.Lock()
	for i := range d.batch {
		d.release(d.batch[i].data)
		d.batch[i] = packet{}
	}
	d.mu.Unlock()
	d.batch = d.batch[:0]
	return next, holding
}

// countLateness records how long after its due time a datagram left (negative: early, within
// sendSlack). Only the event loop calls it, so the maximum needs no compare-and-swap.
func (d *direction) countLateness(lateNs int64) {
	switch {
	case lateNs > 10e6:
		d.lateOver10.Add(1)
		fallthrough
	case lateNs > 3e6:
		d.lateOver3.Add(1)
		fallthrough
	case lateNs > 1e6:
		d.lateOver1.Add(1)
	}
	if lateNs > 0 && uint64(lateNs) > d.lateMaxNs.Load() {
		d.lateMaxNs.Store(uint64(lateNs))
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
}

func (d *direction) stats() DirectionStats {
	d.mu.Lock()
	s := DirectionStats{
		DelayMs: d.shaping.DelayMs, LossPercent: d.shaping.LossPercent, JitterMs: d.shaping.JitterMs,
		Seed: d.draws.seed, Queued: d.queue.len(), Cut: d.cut,
	}
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
	s.Late = LateCounts{
		Over1Ms: d.lateOver1.Load(), Over3Ms: d.lateOver3.Load(), Over10Ms: d.lateOver10.Load(),
		MaxMs: float64(d.lateMaxNs.Load()) / 1e6,
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
