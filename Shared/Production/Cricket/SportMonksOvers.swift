/// Conversions between legal-ball counts and SportMonks' numeric overs (19.4 = 19 overs and 4 balls).
/// Works through the decimal text, never float arithmetic, so 0.1 + 0.2 style errors cannot appear.
public enum SportMonksOvers {
    /// The SportMonks overs number for `legalBalls` (6 balls an over): 124 → 20.4, 120 → 20.
    public static func overs(fromLegalBalls legalBalls: Int, ballsPerOver: Int = 6) -> Double {
        number(over: legalBalls / ballsPerOver, ball: legalBalls % ballsPerOver)
    }

    /// `over` + `ball`/10 as the exact decimal the text "over.ball" denotes (ball 0 → integral).
    public static func number(over: Int, ball: Int) -> Double {
        ball == 0 ? Double(over) : Double("\(over).\(ball)") ?? Double(over)
    }

    /// Splits a SportMonks overs/ball number into (over, ball): 19.4 → (19, 4), 20 → (20, 0).
    public static func components(of value: Double) -> (over: Int, ball: Int) {
        let tenths = Int((value * 10).rounded())
        return (tenths / 10, tenths % 10)
    }

    /// Legal balls denoted by a SportMonks overs number: 19.4 → 118.
    public static func legalBalls(fromOvers value: Double, ballsPerOver: Int = 6) -> Int {
        let (over, ball) = components(of: value)
        return over * ballsPerOver + ball
    }
}
