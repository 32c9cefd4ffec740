package engine

import "testing"

func TestHasGroupConcat(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT a FROM t GROUP BY a HAVING GROUP_CONCAT(b) = 'x'": true,
		"select group_concat(b) from t":                           true,
		"SELECT Group_Concat(b) FROM t":                           true,
		"_concat group_":                                          false,
		"SELECT my_col FROM t_1 GROUP BY a":                       false,
		"_":                                                       false,
		"":                                                        false,
		"GROUP_CONCA":                                             false,
	} {
		if got := hasGroupConcat(q); got != want {
			t.Errorf("hasGroupConcat(%q) = %v, want %v", q, got, want)
		}
	}
}
