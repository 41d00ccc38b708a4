package relay

import (
	"hash/fnv"
	"math/rand/v2"
)

// draws is a direction's source of random loss and jitter. A run is repeatable: from the same
// seed, the same packets offered get the same drops and the same delays.
//
// The link id and direction are mixed into the generator's state with the seed, so that one seed
// given to every link (a run's seed) does not make all links drop the same packet numbers in step,
// which would correlate losses that a real WAN has independently.
type draws struct {
	seed   uint64
	stream uint64
	pcg    rand.PCG
	rng    *rand.Rand
}

// init readies d for the direction named stream (e.g. "sydney-pune/0 ab"); d must not move
// afterwards, since rng points into it.
func (d *draws) init(stream string, seed uint64) {
	h := fnv.New64a()
	h.Write([]byte(stream))
	d.stream = h.Sum64()
	d.rng = rand.New(&d.pcg)
	d.reseed(seed)
}

// reseed restarts the draws from the beginning of seed's sequence.
func (d *draws) reseed(seed uint64) {
	d.seed = seed
	d.pcg.Seed(seed, d.stream)
}

// randomSeed picks a seed for a direction given none; 53 bits, so JavaScript reads it exactly.
func randomSeed() uint64 { return rand.Uint64() >> 11 }
