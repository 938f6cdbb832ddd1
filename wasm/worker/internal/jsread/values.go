//go:build js && wasm

package jsread

import (
	"errors"

	"github.com/hack-pad/safejs"
)

// Elements returns the items of the JS array a.
func Elements(a safejs.Value) ([]safejs.Value, error) {
	if a.Type() != safejs.TypeObject {
		return nil, errors.New("expected an array, got " + a.Type().String())
	}
	n, err := a.Length()
	if err != nil {
		return nil, err
	}
	out := make([]safejs.Value, n)
	for i := range out {
		if out[i], err = a.Index(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Field returns the property k of the object o.
func Field(o safejs.Value, k string) (safejs.Value, error) {
	if o.Type() != safejs.TypeObject {
		return safejs.Value{}, errors.New("expected an object holding " + k + ", got " + o.Type().String())
	}
	return o.Get(k)
}

// Text returns the string property k of o; null or undefined is "" (a NULL
// column), any other type an error.
func Text(o safejs.Value, k string) (string, error) {
	v, err := Field(o, k)
	if err != nil {
		return "", err
	}
	switch v.Type() {
	case safejs.TypeString:
		return v.String()
	case safejs.TypeNull, safejs.TypeUndefined:
		return "", nil
	}
	return "", errors.New(k + " is a " + v.Type().String() + ", not a string")
}

// Number returns the numeric property k of o.
func Number(o safejs.Value, k string) (float64, error) {
	v, err := Field(o, k)
	if err != nil {
		return 0, err
	}
	if v.Type() != safejs.TypeNumber {
		return 0, errors.New(k + " is a " + v.Type().String() + ", not a number")
	}
	return v.Float()
}
