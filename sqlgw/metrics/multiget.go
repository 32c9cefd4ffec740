package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// MultiGet implements storage.MultiGetter: each key counts as one get
// request, as the loop of Get calls it stands for (an absent entity as a
// failed Get, each observing the mean latency of the call's Gets); on an
// error, the Gets up to the one that failed are unknown here, and one
// failed request is counted.
func (s *Store) MultiGet(ctx context.Context, table string, keys []storage.EntityKey, opts *storage.GetOptions) ([]*storage.Entity, error) {
	t := time.Now()
	ents, err := storage.MultiGet(ctx, s.inner, table, keys, opts)
	if err != nil {
		s.done(opGet, t, err)
		return nil, err
	}
	if len(keys) == 0 {
		return ents, nil
	}
	h := &s.m.ops[opGet].latency
	st := &h.s[stripe()]
	st.events.Add(int64(len(keys)))
	mean := time.Since(t) / time.Duration(len(keys))
	n, missing := 0, 0
	for _, e := range ents {
		h.observeIn(st, mean)
		if e == nil {
			missing++
		} else {
			n++
		}
	}
	if missing > 0 {
		st.errors.Add(int64(missing))
	}
	s.m.entitiesRead.Add(int64(n))
	return ents, nil
}

// MultiGetRows forwards to the backend's storage.MultiRowGetter, if any,
// and counts the call as MultiGet does: each key one get request (an
// absent entity a failed Get).
func (s *Store) MultiGetRows(ctx context.Context, table string, keys []storage.EntityKey, sel, more []string, rows []storage.Row, found []bool) error {
	if _, ok := s.inner.(storage.MultiRowGetter); !ok {
		return storage.ErrRowsUnsupported
	}
	t := time.Now()
	err := storage.ForwardMultiGetRows(ctx, s.inner, table, keys, sel, more, rows, found)
	if errors.Is(err, storage.ErrRowsUnsupported) {
		return err
	}
	if err != nil {
		s.done(opGet, t, err)
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	h := &s.m.ops[opGet].latency
	st := &h.s[stripe()]
	st.events.Add(int64(len(keys)))
	mean := time.Since(t) / time.Duration(len(keys))
	n, missing := 0, 0
	for _, ok := range found {
		h.observeIn(st, mean)
		if ok {
			n++
		} else {
			missing++
		}
	}
	if missing > 0 {
		st.errors.Add(int64(missing))
	}
	s.m.entitiesRead.Add(int64(n))
	return nil
}
