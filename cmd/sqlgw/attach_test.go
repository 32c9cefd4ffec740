package main

import (
	"slices"
	"strings"
	"testing"
)

// TestStoreDescriptionNoSecret: an endpoint spec is logged without its SAS.
func TestStoreDescriptionNoSecret(t *testing.T) {
	for spec, want := range map[string]string{
		"https://acct.table.core.windows.net":                        "https://acct.table.core.windows.net",
		"https://acct.table.core.windows.net/?sv=2022&sig=SECRETSIG": "https://acct.table.core.windows.net",
		"https://acct.table.cosmos.azure.com:443/":                   "https://acct.table.cosmos.azure.com:443",
		"AccountName=acct;AccountKey=SECRETKEY":                      "AccountName=acct",
	} {
		if got := accountName(spec); got != want || strings.Contains(got, "SECRET") {
			t.Errorf("accountName(%q) = %q, want %q", spec, got, want)
		}
	}
	if got := redactSpec("azure:https://acct.table.core.windows.net?sv=1&sig=SECRETSIG"); strings.Contains(got, "SECRET") {
		t.Errorf("redactSpec kept the signature: %q", got)
	}
}

func TestAttachConfigFlags(t *testing.T) {
	cfg := attachConfig("azure", 50, " Orders, Customers ,,")
	if cfg.Database != "azure" || cfg.Scan != 50 || !slices.Equal(cfg.Tables, []string{"Orders", "Customers"}) {
		t.Fatalf("%+v", cfg)
	}
	if cfg := attachConfig("", 1000, ""); cfg.Database != "" || cfg.Tables != nil {
		t.Fatalf("%+v", cfg)
	}
}
