/// The one home of a token's time checks: `exp` and `nbf` against the clock with leeway.
///
/// The claims come from the token, so any `Int64` is possible (`exp` = 2^63−1 crashed `exp + leeway`):
/// every sum and difference here saturates instead of trapping.
enum TokenWindow {
    /// `now` is past `exp` by more than `leeway`.
    static func hasExpired(exp: Int64, now: Int64, leeway: Int64) -> Bool {
        now > saturatingSum(exp, leeway)
    }

    /// `now` is before `nbf` by more than `leeway`.
    static func isNotYetValid(nbf: Int64, now: Int64, leeway: Int64) -> Bool {
        saturatingSum(now, leeway) < nbf
    }

    /// `exp` lies more than `limit` + `leeway` seconds after `now`.
    static func livesTooLong(exp: Int64, now: Int64, leeway: Int64, limit: Int64) -> Bool {
        exp > saturatingSum(now, saturatingSum(limit, leeway))
    }

    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }
}
