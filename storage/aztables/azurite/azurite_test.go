package azurite

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// TestConcurrentLaunch starts two servers at once (both go through Install's
// lock) and checks that each answers and stops by its PID.
func TestConcurrentLaunch(t *testing.T) {
	if os.Getenv(EnvConnStr) != "" {
		t.Skipf("skipping: %s points the tests at an external service", EnvConnStr)
	}
	var wg sync.WaitGroup
	servers := make([]*Server, 2)
	errs := make([]error, 2)
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			servers[i], errs[i] = Launch(ctx, &Options{Logf: t.Logf})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			unavailable(t, err)
		}
		defer servers[i].Stop()
	}
	if servers[0].Port == servers[1].Port {
		t.Fatalf("both servers on port %d", servers[0].Port)
	}
	for _, s := range servers {
		resp, err := http.Get(s.Endpoint + "/Tables")
		if err != nil {
			t.Fatalf("GET %s: %v", s.Endpoint, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("unauthenticated GET /Tables: status %d, want 403", resp.StatusCode)
		}
	}
	s := servers[0]
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-s.done:
	default:
		t.Fatalf("process %d still running after Stop", s.PID())
	}
	if _, err := http.Get(s.Endpoint + "/Tables"); err == nil {
		t.Fatalf("server still answers after Stop")
	}
}
