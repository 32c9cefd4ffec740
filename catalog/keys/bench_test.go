package keys

import (
	"testing"

	"github.com/shopspring/decimal"
)

func BenchmarkEncode(b *testing.B) {
	d := decimal.RequireFromString("12345.678900")
	b.Run("type=int", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64)
		for i := 0; i < b.N; i++ {
			buf = EncodeIntAscending(buf[:0], int64(i)*7919)
		}
	})
	b.Run("type=string/len=32", func(b *testing.B) {
		b.ReportAllocs()
		s := "customer/0042#é and some text.."
		buf := make([]byte, 0, 128)
		for i := 0; i < b.N; i++ {
			buf = EncodeStringAscending(buf[:0], s)
		}
	})
	b.Run("type=decimal", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64)
		for i := 0; i < b.N; i++ {
			buf = EncodeDecimalAscending(buf[:0], d)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	ki := EncodeIntAscending(nil, 123456789)
	ks := EncodeStringAscending(nil, "customer/0042#é and some text..")
	kd := EncodeStringDescending(nil, "customer/0042#é and some text..")
	b.Run("type=int", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := DecodeIntAscending(ki); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("type=string/len=32", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := DecodeStringAscending(ks); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("type=string/len=32/desc", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := DecodeStringDescending(kd); err != nil {
				b.Fatal(err)
			}
		}
	})
}
