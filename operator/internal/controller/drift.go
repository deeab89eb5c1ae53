package controller

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// drifted reports whether got, a child as the watch decoded it (a typed
// object), lacks a field the apply configuration want sets or differs in
// one. It is tenant.Drifted's rule, which compares JSON maps, applied to
// the Go values without encoding either (ADR 0354): a field want leaves
// unset (nil, or empty and omitempty) is not compared; fields others set
// (extra labels, status, defaults the API server fills in) are not drift;
// maps must hold want's keys with want's values; lists must match element
// by element. Fields are paired by their JSON names, so an apply
// configuration and its typed object line up as they do on the wire.
// Quantities compare by value. want's kind and apiVersion are not
// compared: a typed object carries neither.
func drifted(want, got any) bool {
	return !covers(reflect.ValueOf(want), reflect.ValueOf(got))
}

var typeMetaAC = reflect.TypeFor[metav1ac.TypeMetaApplyConfiguration]()

// marshaler: types with their own JSON form (Quantity, IntOrString, Time)
// are compared as wholes, semantically, never field by field.
var marshaler = reflect.TypeFor[json.Marshaler]()

func covers(w, g reflect.Value) bool {
	for w.Kind() == reflect.Pointer || w.Kind() == reflect.Interface {
		if w.IsNil() {
			return true // unset: not compared
		}
		w = w.Elem()
	}
	// Absent (a nil pointer or no such field) is the zero value: as an
	// absent JSON field, it covers only a want that sets nothing in it.
	for g.IsValid() && (g.Kind() == reflect.Pointer || g.Kind() == reflect.Interface) {
		switch {
		case !g.IsNil():
			g = g.Elem()
		case g.Kind() == reflect.Pointer:
			g = reflect.Zero(g.Type().Elem())
		default:
			g = reflect.Value{}
		}
	}
	if !g.IsValid() {
		g = reflect.Zero(w.Type())
	}
	if w.Type() == g.Type() && (w.Type().Implements(marshaler) || reflect.PointerTo(w.Type()).Implements(marshaler)) {
		return equality.Semantic.DeepEqual(w.Interface(), g.Interface())
	}
	switch w.Kind() {
	case reflect.Struct:
		if g.Kind() != reflect.Struct {
			return false
		}
		gf := fieldsOf(g.Type())
		for _, f := range structFields(w.Type()) {
			wv := w.Field(f.index)
			if f.typeMeta {
				continue
			}
			if f.inline {
				if !covers(wv, g) {
					return false
				}
				continue
			}
			if f.omitEmpty && emptyValue(wv) {
				continue
			}
			var gv reflect.Value // invalid: absent
			if path, ok := gf[f.name]; ok {
				gv, _ = fieldByPath(g, path)
			}
			if !covers(wv, gv) {
				return false
			}
		}
		return true
	case reflect.Map:
		if g.Kind() != reflect.Map {
			return w.Len() == 0
		}
		it := w.MapRange()
		for it.Next() {
			k := it.Key()
			if k.Type() != g.Type().Key() {
				if !k.CanConvert(g.Type().Key()) {
					return false
				}
				k = k.Convert(g.Type().Key())
			}
			gv := g.MapIndex(k)
			if !gv.IsValid() {
				if emptyValue(it.Value()) {
					continue
				}
				return false
			}
			if !covers(it.Value(), gv) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if g.Kind() != reflect.Slice && g.Kind() != reflect.Array {
			return false
		}
		if w.Len() != g.Len() {
			return false
		}
		for i := range w.Len() {
			if !covers(w.Index(i), g.Index(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return g.Kind() == reflect.String && w.String() == g.String()
	case reflect.Bool:
		return g.Kind() == reflect.Bool && w.Bool() == g.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		wf, ok1 := number(w)
		gf, ok2 := number(g)
		return ok1 && ok2 && wf == gf
	}
	return w.Type() == g.Type() && equality.Semantic.DeepEqual(w.Interface(), g.Interface())
}

// number is v as JSON would compare it.
func number(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

// emptyValue is encoding/json's omitempty test.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	case reflect.Invalid:
		return true
	}
	return false
}

// field is a struct field of an apply configuration as JSON sees it.
type field struct {
	index     int
	name      string
	omitEmpty bool
	inline    bool // embedded or ",inline": its fields are the parent's
	typeMeta  bool // kind and apiVersion: not compared
}

var (
	structFieldsCache sync.Map // reflect.Type -> []field
	fieldsOfCache     sync.Map // reflect.Type -> map[string][]int
)

// structFields lists t's fields as JSON encodes them.
func structFields(t reflect.Type) []field {
	if v, ok := structFieldsCache.Load(t); ok {
		return v.([]field)
	}
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || (!sf.IsExported() && !sf.Anonymous) {
			continue
		}
		f := field{index: i, name: name, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")}
		if sf.Type == typeMetaAC || sf.Type == reflect.PointerTo(typeMetaAC) {
			f.typeMeta = true
		}
		if name == "" {
			if sf.Anonymous || strings.Contains(","+opts+",", ",inline,") {
				f.inline = true
			} else {
				f.name = sf.Name
			}
		}
		out = append(out, f)
	}
	structFieldsCache.Store(t, out)
	return out
}

// fieldsOf maps the JSON names of t's fields, embedded and inline ones
// flattened, to their index paths.
func fieldsOf(t reflect.Type) map[string][]int {
	if v, ok := fieldsOfCache.Load(t); ok {
		return v.(map[string][]int)
	}
	out := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for _, f := range structFields(t) {
			path := append(append([]int(nil), prefix...), f.index)
			if f.inline {
				ft := t.Field(f.index).Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, path)
				}
				continue
			}
			if _, ok := out[f.name]; !ok {
				out[f.name] = path
			}
		}
	}
	walk(t, nil)
	fieldsOfCache.Store(t, out)
	return out
}

// fieldByPath is v.FieldByIndex that reports a nil embedded pointer on the
// way instead of panicking.
func fieldByPath(v reflect.Value, path []int) (reflect.Value, bool) {
	for i, x := range path {
		if i > 0 {
			for v.Kind() == reflect.Pointer {
				if v.IsNil() {
					return reflect.Value{}, false
				}
				v = v.Elem()
			}
		}
		v = v.Field(x)
	}
	return v, true
}
