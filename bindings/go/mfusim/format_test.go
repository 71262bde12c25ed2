package mfusim

import (
	"fmt"
	"strings"
	"testing"
)

// Printing a result shows its exported fields and what its accessors answer, never the ABI bookkeeping
// (structSize, nOps, the table name's raw bytes).
func TestPrintingShowsNoInternals(t *testing.T) {
	e := open(t, rooflineOptions)
	s, err := e.ServingEstimate(DefaultServing())
	if err != nil {
		t.Fatal(err)
	}
	var r StepResult
	if err := e.StepDetail(mixedStep(32), &r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  string
		want []string
	}{
		{fmt.Sprintf("%v", s), []string{"TTFTms:" + fmt.Sprint(s.TTFTms), "LimitedBy:" + s.LimitedBy.String()}},
		{fmt.Sprintf("%+v", &s), []string{"TPOTms:", "KVCapacityTokens:"}},
		{fmt.Sprint(r), []string{"TotalUS:" + fmt.Sprint(r.TotalUS), "Bound:" + r.Bound.String(), "Ops:[", "qkv_proj:{TimeUS:", `Table:""`}},
		{fmt.Sprintf("%+v", &r), []string{"attn_decode:{", "Source:"}},
		{fmt.Sprint(*r.Op(OpFFN)), []string{"TimeUS:", "Efficiency:", "Table:"}},
	} {
		for _, bad := range []string{"structSize", "nOps", "table:[", "ops:["} {
			if strings.Contains(c.got, bad) {
				t.Errorf("%q shows %s", c.got, bad)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("%q lacks %q", c.got, w)
			}
		}
	}
}
