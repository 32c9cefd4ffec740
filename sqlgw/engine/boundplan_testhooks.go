package engine

// SetVerifyBoundPlans makes every execute whose access path was bound
// (boundplan.go) also re-plan it the old way and record any difference
// (BoundPlanMismatches); it returns a function restoring the previous
// setting.
func SetVerifyBoundPlans(on bool) (restore func()) {
	old := verifyBound.Swap(on)
	return func() { verifyBound.Store(old) }
}

// BoundPlanMismatches returns the number of differences SetVerifyBoundPlans
// found and the last one.
func BoundPlanMismatches() (int64, string) {
	last, _ := boundMismatches.last.Load().(string)
	return boundMismatches.n.Load(), last
}
