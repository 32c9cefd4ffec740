package statistics

import "encoding/json"

// savedStats is the stored form of a Table.
type savedStats struct {
	Rows    int64                 `json:"rows"`
	Bytes   int64                 `json:"bytes,omitempty"` // added later
	Indexes map[string]savedIndex `json:"ix"`
}

type savedIndex struct {
	Distinct []int64     `json:"d"`
	TopKeys  []string    `json:"tk,omitempty"`
	TopCount []int64     `json:"tc,omitempty"`
	Lead     int         `json:"l"`
	Bounds   *[2]float64 `json:"b,omitempty"`
	// Hist is the histogram (histogram.go). Added later.
	Hist []savedBucket `json:"h,omitempty"`
}

// Marshal is the stored form of ts (JSON; the engine keeps one per table
// in the store).
func (ts *Table) Marshal(v Values) ([]byte, error) {
	sv := savedStats{Rows: ts.Rows, Bytes: ts.bytes, Indexes: map[string]savedIndex{}}
	for name, is := range ts.indexes {
		si := savedIndex{Distinct: is.distinct, Lead: is.lead, Bounds: is.bounds, Hist: saveHist(is.hist, is.histTypes, v)}
		for _, tv := range is.top {
			si.TopKeys = append(si.TopKeys, tv.key)
			si.TopCount = append(si.TopCount, tv.count)
		}
		sv.Indexes[name] = si
	}
	return json.Marshal(sv)
}

// Unmarshal reads statistics stored by Marshal, nil when b is not that.
func Unmarshal(b []byte) *Table {
	var sv savedStats
	if json.Unmarshal(b, &sv) != nil {
		return nil
	}
	ts := &Table{Rows: sv.Rows, bytes: sv.Bytes, indexes: map[string]*index{}}
	for name, si := range sv.Indexes {
		// The histogram is converted when first used (Table.GMS).
		is := &index{distinct: si.Distinct, lead: si.Lead, bounds: si.Bounds, savedHist: si.Hist}
		for i, k := range si.TopKeys {
			if i < len(si.TopCount) {
				is.top = append(is.top, topValue{k, si.TopCount[i]})
			}
		}
		ts.indexes[name] = is
	}
	return ts
}
