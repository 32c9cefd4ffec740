package catalog

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// The accounts record: absent at first, written once by the first of two
// catalogs, a change based on a stale version refused (never a lost
// update), and a record larger than one property split and reassembled.
func TestAccountsRecord(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, b := open(t, s, Options{}), open(t, s, Options{})
	data, v0, err := a.Accounts(ctx)
	if err != nil || data != nil || v0.Exists() {
		t.Fatalf("empty store: %v %v %v", data, v0, err)
	}
	v1, err := a.PutAccounts(ctx, []byte("one"), v0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.PutAccounts(ctx, []byte("two"), v0); !errors.Is(err, ErrAccountsConflict) {
		t.Fatalf("second first write: %v, want ErrAccountsConflict", err)
	}
	got, vb, err := b.Accounts(ctx)
	if err != nil || string(got) != "one" || vb != v1 || vb.Version != 1 {
		t.Fatalf("b reads %q %v %v, want one %v", got, vb, err, v1)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 10000) // 160 KB: 3 properties
	v2, err := b.PutAccounts(ctx, big, vb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutAccounts(ctx, []byte("stale"), v1); !errors.Is(err, ErrAccountsConflict) {
		t.Fatalf("stale write: %v, want ErrAccountsConflict", err)
	}
	if pv, err := a.AccountsVersion(ctx); err != nil || pv != v2 {
		t.Fatalf("AccountsVersion %v %v, want %v", pv, err, v2)
	}
	got, va, err := a.Accounts(ctx)
	if err != nil || !bytes.Equal(got, big) || va != v2 || va.Version != 2 {
		t.Fatalf("a reads %d bytes %v %v, want %d bytes %v", len(got), va, err, len(big), v2)
	}
}
