package mfusim

import (
	"reflect"
	"strconv"
	"strings"
)

// Printing results: fmt's %v and %+v show every field of a struct, unexported ones included, so a ServingResult or
// StepResult would print its ABI bookkeeping (structSize, nOps, the table name's 96 bytes). These String methods
// print the exported fields (by name, as %+v does) and what the accessors answer instead. %#v still shows the
// raw layout.

// String prints the exported fields: {TTFTms:... TPOTms:... ... LimitedBy:kv_capacity}.
func (r ServingResult) String() string { return exportedFields(reflect.ValueOf(r), nil) }

// String prints the exported fields and TransferOverNetwork().
func (r DisaggResult) String() string {
	return exportedFields(reflect.ValueOf(r), []string{"TransferOverNetwork:" + strconv.FormatBool(r.TransferOverNetwork())})
}

// String prints the total, the bound and the breakdown by operation name (operations that took no time left out).
func (r StepResult) String() string {
	var ops []string
	for i, d := range r.Ops() {
		if d.TimeUS != 0 {
			ops = append(ops, Op(i).String()+":"+d.String())
		}
	}
	return exportedFields(reflect.ValueOf(r), []string{"Ops:[" + strings.Join(ops, " ") + "]"})
}

// String prints the exported fields and the table (Table()).
func (d OpDetail) String() string {
	return exportedFields(reflect.ValueOf(d), []string{"Table:" + strconv.Quote(d.Table())})
}

// exportedFields formats v's exported fields as {Name:value ...}, then extra.
func exportedFields(v reflect.Value, extra []string) string {
	var b strings.Builder
	b.WriteByte('{')
	t := v.Type()
	n := 0
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		n++
		b.WriteString(f.Name)
		b.WriteByte(':')
		b.WriteString(formatValue(v.Field(i)))
	}
	for _, e := range extra {
		if n > 0 {
			b.WriteByte(' ')
		}
		n++
		b.WriteString(e)
	}
	b.WriteByte('}')
	return b.String()
}

func formatValue(v reflect.Value) string {
	if s, ok := v.Interface().(interface{ String() string }); ok {
		return s.String()
	}
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.String:
		return v.String()
	}
	return v.Type().String()
}
