// Package relay is the local fleet's WAN link emulator: a UDP relay that gives each direction of
// each link a one-way delay with optional jitter, a rate cap and seeded random loss, and cuts and restores links, all
// changeable while traffic flows.
package relay

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
)

// socketBufferBytes is asked of the kernel for each socket so that bursts queue in the relay (where
// they are shaped and counted) rather than being dropped unseen by a full socket buffer.
const socketBufferBytes = 4 << 20

// Relay forwards the datagrams of every configured link.
type Relay struct {
	links   []*link
	byID    map[string]*link
	loop    *eventLoop
	closing sync.Once
}

type link struct {
	id     string
	ab, ba *direction
	socks  []*udpSocket
}

// end is one bound socket of a link and what arrives on it.
type end struct {
	sock *udpSocket
	peer netip.AddrPort
	into *direction
}

// New binds every link's sockets and starts forwarding. A socket that cannot be bound is an error
// naming its field; nothing is left open then.
func New(cfg *Config) (*Relay, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Relay{byID: map[string]*link{}}
	var ends []end
	for i, lc := range cfg.Links {
		l, linkEnds, err := openLink(i, lc)
		if err != nil {
			for _, l := range r.links {
				l.close()
			}
			return nil, err
		}
		r.links = append(r.links, l)
		r.byID[l.id] = l
		ends = append(ends, linkEnds...)
	}
	loop, err := newEventLoop(ends)
	if err != nil {
		for _, l := range r.links {
			l.close()
		}
		return nil, err
	}
	r.loop = loop
	go loop.run()
	return r, nil
}

func openLink(i int, lc LinkConfig) (*link, []end, error) {
	at := fmt.Sprintf("links[%d]", i)
	l := &link{id: lc.ID}
	sockA, peerA, err := listen(at+".a", lc.A)
	if err != nil {
		return nil, nil, err
	}
	l.socks = append(l.socks, sockA)
	sockB, peerB, err := listen(at+".b", lc.B)
	if err != nil {
		l.close()
		return nil, nil, err
	}
	l.socks = append(l.socks, sockB)
	l.ab, l.ba = newDirection(sockB, peerB, lc.AB, lc.ID+" ab"), newDirection(sockA, peerA, lc.BA, lc.ID+" ba")
	l.refreshRTT()
	return l, []end{{sockA, peerA, l.ab}, {sockB, peerB, l.ba}}, nil
}

func listen(field string, ec EndConfig) (*udpSocket, netip.AddrPort, error) {
	// Validated already; unmapped so that received source addresses compare equal.
	at, _ := netip.ParseAddrPort(ec.Listen)
	peer, _ := netip.ParseAddrPort(ec.Peer)
	sock, err := openUDP(netip.AddrPortFrom(at.Addr().Unmap(), at.Port()))
	if err != nil {
		return nil, netip.AddrPort{}, &FieldError{Field: field + ".listen", Problem: fmt.Sprintf("cannot bind %s: %v", ec.Listen, unwrapAll(err))}
	}
	return sock, netip.AddrPortFrom(peer.Addr().Unmap(), peer.Port()), nil
}

func unwrapAll(err error) error {
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err
}

func (l *link) refreshRTT() {
	rtt := l.ab.delay() + l.ba.delay()
	l.ab.setLinkRTT(rtt)
	l.ba.setLinkRTT(rtt)
}

func (l *link) close() {
	for _, d := range []*direction{l.ab, l.ba} {
		if d != nil {
			d.close()
		}
	}
	for _, s := range l.socks {
		s.close()
	}
}

// Close stops forwarding and closes every socket; it returns when the event loop has ended.
func (r *Relay) Close() {
	r.closing.Do(func() {
		r.loop.close()
		for _, l := range r.links {
			l.close()
		}
	})
}

// Change is one shaping change. Nil fields stay as they are; SetRate says whether RateMbps is
// given (nil RateMbps with SetRate means "no cap").
type Change struct {
	Link        string
	Dir         string
	DelayMs     *float64
	SetRate     bool
	RateMbps    *float64
	LossPercent *float64
	JitterMs    *float64
	// Seed restarts the direction's loss and jitter draws from this seed's beginning.
	Seed *float64
}

// ChangeError is a rejected change: Index says which of the changes passed to Apply it was.
type ChangeError struct {
	Index int
	Err   error
}

func (e *ChangeError) Error() string { return e.Err.Error() }
func (e *ChangeError) Unwrap() error { return e.Err }

// Apply validates every change, then applies all of them; if one is bad, none is applied.
// Each change affects packets arriving from then on.
func (r *Relay) Apply(changes []Change) error {
	for i, c := range changes {
		if err := r.check(c); err != nil {
			return &ChangeError{Index: i, Err: err}
		}
	}
	for _, c := range changes {
		l := r.byID[c.Link]
		for _, d := range l.directions(c.Dir) {
			d.apply(c)
		}
		if c.DelayMs != nil {
			l.refreshRTT()
		}
	}
	return nil
}

func (r *Relay) check(c Change) error {
	if _, err := r.find(c.Link); err != nil {
		return err
	}
	var errs fieldErrors
	if c.Dir != "ab" && c.Dir != "ba" && c.Dir != "both" {
		errs.add("dir", `must be "ab", "ba" or "both", got %q`, c.Dir)
	}
	if c.DelayMs == nil && !c.SetRate && c.LossPercent == nil && c.JitterMs == nil && c.Seed == nil {
		errs.add("", "nothing to change: give delayMs, rateMbps, lossPercent, jitterMs or seed")
	}
	if c.DelayMs != nil {
		checkDelay(&errs, "delayMs", *c.DelayMs)
	}
	if c.SetRate && c.RateMbps != nil {
		checkRate(&errs, "rateMbps", *c.RateMbps)
	}
	if c.LossPercent != nil {
		checkLoss(&errs, "lossPercent", *c.LossPercent)
	}
	if c.JitterMs != nil {
		checkJitter(&errs, "jitterMs", *c.JitterMs)
	}
	if c.Seed != nil {
		checkSeed(&errs, "seed", *c.Seed)
	}
	return errs.err()
}

func (l *link) directions(dir string) []*direction {
	switch dir {
	case "ab":
		return []*direction{l.ab}
	case "ba":
		return []*direction{l.ba}
	default:
		return []*direction{l.ab, l.ba}
	}
}

func (r *Relay) find(id string) (*link, error) {
	l, ok := r.byID[id]
	if !ok {
		return nil, &FieldError{Problem: fmt.Sprintf("unknown link %q", id)}
	}
	return l, nil
}

// Cut drops everything on the link in the given direction ("ab", "ba", or "both"/"" for both
// ways), including what that direction holds, until Restore. One way cut is the asymmetric
// partition: a hears b, b never hears a.
func (r *Relay) Cut(id, dir string) error { return r.setCut(id, dir, true) }

// Restore forwards again on a cut direction (with the shaping it had).
func (r *Relay) Restore(id, dir string) error { return r.setCut(id, dir, false) }

func (r *Relay) setCut(id, dir string, cut bool) error {
	if dir == "" {
		dir = "both"
	}
	if dir != "ab" && dir != "ba" && dir != "both" {
		return &FieldError{Field: "dir", Problem: fmt.Sprintf(`must be "ab", "ba" or "both", got %q`, dir)}
	}
	l, err := r.find(id)
	if err != nil {
		return err
	}
	for _, d := range l.directions(dir) {
		d.setCut(cut)
	}
	return nil
}

// LinkStats is one link's state and counters.
type LinkStats struct {
	ID  string         `json:"id"`
	Cut bool           `json:"cut"`
	AB  DirectionStats `json:"ab"`
	BA  DirectionStats `json:"ba"`
}

// Stats reports every link, in config order.
func (r *Relay) Stats() []LinkStats {
	out := make([]LinkStats, 0, len(r.links))
	for _, l := range r.links {
		out = append(out, LinkStats{ID: l.id, Cut: l.ab.isCut() || l.ba.isCut(), AB: l.ab.stats(), BA: l.ba.stats()})
	}
	return out
}
