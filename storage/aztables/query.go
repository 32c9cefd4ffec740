package aztables

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/storage"
)

// Query implements storage.Store: one Query Entities request.
func (s *Store) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	if err := s.caps.Limits.ValidateQuery(q); err != nil {
		return nil, err
	}
	if q.Reverse {
		// The Table service reads forward only (Capabilities().Reverse
		// is unset); the planner never asks.
		return nil, fmt.Errorf("%w: the Table service cannot read backwards", storage.ErrInvalid)
	}
	_, err := s.client(table)
	if err != nil {
		return nil, err
	}
	plan := planQuery(q)
	opts := &aztables.ListEntitiesOptions{}
	if plan.filter != "" {
		opts.Filter = to.Ptr(plan.filter)
	}
	if plan.selectList != "" {
		opts.Select = to.Ptr(plan.selectList)
	}
	if q.Top > 0 { // never $top=0: the SDK then loops forever
		opts.Top = to.Ptr(int32(min(q.Top, storage.MaxPageSize)))
	}
	if q.Continuation != "" {
		npk, nrk, err := decodeToken(q.Continuation)
		if err != nil {
			return nil, err
		}
		opts.NextPartitionKey, opts.NextRowKey = npk, nrk
	}
	var page *storage.Page
	err = s.doTable(ctx, "QueryEntities", table, idempotent, func(ctx context.Context, c *aztables.Client) error {
		ctx, cap := withCapture(ctx, stubQuery)
		resp, err := c.NewListEntitiesPager(opts).NextPage(ctx)
		if err != nil {
			return err
		}
		ents, err := decodeQuery(cap.body, plan.keep)
		if err != nil {
			return err
		}
		if plan.local != nil {
			kept := ents[:0]
			for _, e := range ents {
				if storage.Eval(plan.local, e) {
					if plan.extra {
						for name := range e.Properties {
							if _, ok := plan.userSel[name]; !ok {
								delete(e.Properties, name)
							}
						}
					}
					kept = append(kept, e)
				}
			}
			ents = kept
		}
		page = &storage.Page{Entities: ents, Continuation: encodeToken(resp.NextPartitionKey, resp.NextRowKey)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}

// queryPlan is what a storage.Query becomes on the wire.
type queryPlan struct {
	filter     string              // $filter sent ("" for none)
	sentExpr   storage.Expr        // the filter sent, as an expression (nil for none)
	selectList string              // $select sent ("" for all)
	local      storage.Expr        // filter applied to the results, nil when the service applies all of it
	keep       map[string]struct{} // user properties decoded (nil: all)
	userSel    map[string]struct{} // user properties returned (the Query's Select)
	extra      bool                // keep holds properties userSel does not: drop them after local
}

// planQuery turns the key ranges into comparisons of PartitionKey and RowKey,
// ANDs them with the filter, and sends as much of that conjunction as fits
// in storage.MaxFilterComparisons: whole top-level conjuncts, in order, key
// comparisons first, skipping those that are not sendable. If something is
// left out, the full filter is evaluated locally (the sent filter is implied
// by it, so no entity that matches is lost).
func planQuery(q *storage.Query) queryPlan {
	var conj []storage.Expr
	conj = appendRange(conj, storage.PropPartitionKey, q.Partition)
	conj = appendRange(conj, storage.PropRowKey, q.Row)
	switch f := q.Filter.(type) {
	case nil:
	case storage.And:
		conj = append(conj, flattenAnd(f)...)
	default:
		conj = append(conj, f)
	}
	var p queryPlan
	var sent []storage.Expr
	n := 0
	for _, x := range conj {
		w, exact := weaken(x)
		if w == nil {
			p.local = q.Filter
			continue
		}
		k := storage.CountComparisons(w)
		if n+k > storage.MaxFilterComparisons {
			p.local = q.Filter
			continue
		}
		sent = append(sent, w)
		n += k
		if !exact {
			p.local = q.Filter
		}
	}
	switch len(sent) {
	case 0:
	case 1:
		p.sentExpr = sent[0]
	default:
		p.sentExpr = storage.And(sent)
	}
	p.filter = storage.FormatOData(p.sentExpr)
	if q.Select != nil {
		p.userSel = selectSet(q.Select)
		var extra []string
		if p.local != nil {
			for _, name := range filterProps(p.local, nil) {
				if _, ok := p.userSel[name]; !ok {
					extra = append(extra, name)
				}
			}
		}
		p.selectList = selectList(q.Select, extra)
		p.keep = selectSet(append(append([]string(nil), q.Select...), extra...))
		p.extra = len(extra) > 0
	}
	return p
}

// weaken returns the filter to send for x: x itself when the service
// evaluates it exactly (exact), a weaker filter that x implies, or nil when
// nothing useful can be sent.
//
//   - Comparisons with a NaN or infinite Double stay local: the service's
//     ordering of those values is not documented; storage.Eval is the
//     reference.
//   - DateTime comparisons (Timestamp included) are widened to whole
//     milliseconds: lower bounds (gt, ge) become "ge" the millisecond that
//     holds the literal, upper bounds (lt, le) "le" its last tick; eq both;
//     ne stays local. Azurite compares DateTimes as JavaScript Dates, at
//     millisecond precision, so an exact 100 ns literal there both misses
//     and adds entities; the widened bounds hold under any monotonic loss of
//     precision, and on the real service they only add a few entities of
//     the same millisecond, which the local evaluation drops.
//   - Under a Not, any of these makes the whole Not local.
func weaken(x storage.Expr) (storage.Expr, bool) {
	switch x := x.(type) {
	case *storage.Compare:
		switch x.Value.Type() {
		case storage.TypeDouble:
			if f := x.Value.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, false
			}
		case storage.TypeDateTime:
			const tickPerMs = 10_000
			t := x.Value.Ticks()
			lo := storage.DateTimeTicks(t - t%tickPerMs)
			hi := storage.DateTimeTicks(t - t%tickPerMs + tickPerMs - 1)
			switch x.Op {
			case storage.OpGt, storage.OpGe:
				return storage.Ge(x.Prop, lo), false
			case storage.OpLt, storage.OpLe:
				return storage.Le(x.Prop, hi), false
			case storage.OpEq:
				return storage.And{storage.Ge(x.Prop, lo), storage.Le(x.Prop, hi)}, false
			}
			return nil, false
		}
		return x, true
	case storage.And:
		var out storage.And
		exact := true
		for _, y := range x {
			w, e := weaken(y)
			if w == nil { // dropping a conjunct weakens an And
				exact = false
				continue
			}
			out = append(out, w)
			exact = exact && e
		}
		if len(out) == 0 {
			return nil, false
		}
		return out, exact
	case storage.Or:
		var out storage.Or
		exact := true
		for _, y := range x {
			w, e := weaken(y)
			if w == nil { // an Or is only as weak as all its branches
				return nil, false
			}
			out = append(out, w)
			exact = exact && e
		}
		return out, exact
	case *storage.Not:
		if _, exact := weaken(x.X); !exact {
			return nil, false
		}
		return x, true
	}
	return x, true
}

func flattenAnd(a storage.And) []storage.Expr {
	var out []storage.Expr
	for _, x := range a {
		if b, ok := x.(storage.And); ok {
			out = append(out, flattenAnd(b)...)
		} else {
			out = append(out, x)
		}
	}
	return out
}

func appendRange(conj []storage.Expr, prop string, r *storage.KeyRange) []storage.Expr {
	if r == nil {
		return conj
	}
	if k, ok := r.Single(); ok {
		return append(conj, storage.Eq(prop, storage.String(k)))
	}
	if r.Low != nil {
		if r.Low.Exclusive {
			conj = append(conj, storage.Gt(prop, storage.String(r.Low.Key)))
		} else {
			conj = append(conj, storage.Ge(prop, storage.String(r.Low.Key)))
		}
	}
	if r.High != nil {
		if r.High.Exclusive {
			conj = append(conj, storage.Lt(prop, storage.String(r.High.Key)))
		} else {
			conj = append(conj, storage.Le(prop, storage.String(r.High.Key)))
		}
	}
	return conj
}

// filterProps appends the user properties x compares.
func filterProps(x storage.Expr, out []string) []string {
	switch x := x.(type) {
	case *storage.Compare:
		switch x.Prop {
		case storage.PropPartitionKey, storage.PropRowKey, storage.PropTimestamp:
		default:
			out = append(out, x.Prop)
		}
	case storage.And:
		for _, y := range x {
			out = filterProps(y, out)
		}
	case storage.Or:
		for _, y := range x {
			out = filterProps(y, out)
		}
	case *storage.Not:
		out = filterProps(x.X, out)
	}
	return out
}

// Continuation tokens: "1." base64url(NextPartitionKey) "." base64url(NextRowKey),
// unpadded; a missing NextRowKey is an empty second part, a missing
// NextPartitionKey "-". The version prefix lets the format change later.
// A token without NextPartitionKey resumes with an empty one: Azurite's
// keys are base64 of the key, empty for the partition "" (keyless tables
// live there), and the SDK drops empty continuation headers; resuming
// without the partition key made Azurite end the query after one page.
const tokenVersion = "1."

func encodeToken(npk, nrk *string) string {
	if (npk == nil || *npk == "") && (nrk == nil || *nrk == "") {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(tokenVersion)
	if npk == nil {
		sb.WriteByte('-')
	} else {
		sb.WriteString(base64.RawURLEncoding.EncodeToString([]byte(*npk)))
	}
	sb.WriteByte('.')
	if nrk != nil {
		sb.WriteString(base64.RawURLEncoding.EncodeToString([]byte(*nrk)))
	}
	return sb.String()
}

func decodeToken(tok string) (npk, nrk *string, err error) {
	bad := fmt.Errorf("%w: malformed continuation token", storage.ErrInvalid)
	rest, ok := strings.CutPrefix(tok, tokenVersion)
	if !ok {
		return nil, nil, bad
	}
	a, b, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, nil, bad
	}
	if a != "-" {
		pk, err := base64.RawURLEncoding.DecodeString(a)
		if err != nil {
			return nil, nil, bad
		}
		npk = to.Ptr(string(pk))
	}
	if b != "" {
		rk, err := base64.RawURLEncoding.DecodeString(b)
		if err != nil {
			return nil, nil, bad
		}
		nrk = to.Ptr(string(rk))
	}
	if npk == nil && nrk == nil {
		return nil, nil, bad
	}
	if npk == nil {
		// Azurite's NextPartitionKey is base64 of the key: empty for the
		// partition "" (keyless tables), and the SDK drops an empty
		// header. The service resumes only with both keys, so send it
		// back empty (without it Azurite answers an empty last page).
		npk = to.Ptr("")
	}
	return npk, nrk, nil
}
