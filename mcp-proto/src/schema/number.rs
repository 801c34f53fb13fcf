//! Writing `f64` fields (progress, priorities, temperature) so whole numbers stay integers:
//! `50` decodes to `50.0` and must encode as `50`, not `50.0`, for a faithful round trip.

use serde::Serializer;

/// The largest integer an `f64` holds exactly (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Serializes `v` as an integer when it is whole and exactly representable, else as a float.
pub(crate) fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() <= EXACT {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// [`serialize`] for optional fields (used with `skip_serializing_if = "Option::is_none"`).
pub(crate) fn serialize_opt<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => serialize(v, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::json;

    #[derive(Serialize)]
    struct N {
        #[serde(serialize_with = "super::serialize")]
        a: f64,
        #[serde(serialize_with = "super::serialize_opt")]
        b: Option<f64>,
    }

    #[test]
    fn whole_numbers_stay_integers() {
        let v = serde_json::to_value(N {
            a: 50.0,
            b: Some(0.25),
        })
        .unwrap();
        assert_eq!(v, json!({"a": 50, "b": 0.25}));
        let v = serde_json::to_value(N { a: -3.0, b: None }).unwrap();
        assert_eq!(v, json!({"a": -3, "b": null}));
        let v = serde_json::to_value(N {
            a: 1e300,
            b: Some(f64::NAN),
        })
        .unwrap();
        assert_eq!(v["a"], json!(1e300));
    }
}
