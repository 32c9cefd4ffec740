package catalog

import "testing"

// TestIsIndexPhysical: the names newPhysicalName makes for global indexes
// ('x') are IsIndexPhysical's, those of tables ('t') are not, with and
// without a catalog prefix (the Pebble store lays the former out for
// reads by partition).
func TestIsIndexPhysical(t *testing.T) {
	for _, prefix := range []string{"", "sg", "abcx"} {
		c := &Catalog{opts: Options{Prefix: prefix}}
		for range 20 {
			if n := c.newPhysicalName('x'); !IsIndexPhysical(n) {
				t.Errorf("index table %q not an index's", n)
			}
			if n := c.newPhysicalName('t'); IsIndexPhysical(n) {
				t.Errorf("table %q taken for an index's", n)
			}
		}
	}
	for _, n := range []string{"", "x", "sbtest1", "x123456789012"} {
		if IsIndexPhysical(n) != (n == "x123456789012") {
			t.Errorf("IsIndexPhysical(%q) = %v", n, IsIndexPhysical(n))
		}
	}
}
