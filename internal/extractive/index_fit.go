package extractive

import (
	"sort"
	"strings"
)

// This file fits the facts index to the room a summary leaves it, by the
// keep order: what a successor needs most stays longest.

// fit drops entries until the index takes at most budget tokens, by the
// keep order: the lowest class first (resolved errors, read files and
// referenced paths, lowest rank and oldest first), then the last command,
// then identifiers, modified files and unresolved errors, each oldest
// first. Before the first entry above the lowest class goes, the
// identifiers lose their tools, then their keys. Every entry dropped is
// counted in the Left out line.
func (fx *factIndex) fit(budget int, count func(string) int) {
	measure := func() int {
		var b strings.Builder
		fx.render(&b)
		return count(b.String())
	}
	total := measure()
	if total <= budget {
		return
	}
	order := make([]int, 0, len(fx.items))
	for i, it := range fx.items {
		if !it.dropped {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := fx.items[order[a]], fx.items[order[b]]
		if cx, cy := keepClass[x.kind], keepClass[y.kind]; cx != cy {
			return cx < cy
		}
		if x.rank != y.rank {
			return x.rank < y.rank
		}
		return x.seq < y.seq
	})
	for _, i := range order {
		it := &fx.items[i]
		for keepClass[it.kind] > 0 && fx.idForm < idsBare {
			fx.idForm++
			fx.written = ""
			if total = measure(); total <= budget {
				return
			}
		}
		it.dropped = true
		fx.leftOut[it.kind]++
		fx.written = ""
		total -= count(it.text) + 1
		if total <= budget {
			if total = measure(); total <= budget {
				return
			}
		}
	}
}
