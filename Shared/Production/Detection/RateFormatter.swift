/// Run rates with two decimals, computed in integers so the text never depends on float rounding quirks.
public enum RateFormatter {
    /// Runs per over: 87 runs off 75 balls → "6.96"; "0.00" before the first legal ball.
    public static func runRate(runs: Int, legalBalls: Int, ballsPerOver: Int = 6) -> String {
        guard legalBalls > 0 else { return "0.00" }
        return twoDecimals(numerator: runs * ballsPerOver, denominator: legalBalls)
    }

    /// Runs per over needed: 45 off 30 balls → "9.00". Nil when nothing is needed or no balls are left.
    public static func requiredRate(runsNeeded: Int, ballsLeft: Int, ballsPerOver: Int = 6) -> String? {
        guard runsNeeded > 0, ballsLeft > 0 else { return nil }
        return twoDecimals(numerator: runsNeeded * ballsPerOver, denominator: ballsLeft)
    }

    /// numerator / denominator rounded half-up to two decimals: (522, 75) → "6.96".
    static func twoDecimals(numerator: Int, denominator: Int) -> String {
        let hundredths = (numerator * 200 + denominator) / (denominator * 2)
        let whole = hundredths / 100
        let fraction = hundredths % 100
        return "\(whole)." + (fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }
}
