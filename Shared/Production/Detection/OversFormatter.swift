import Cricket

/// Overs as cricket shows them: completed overs, a dot, balls of the over in progress.
///
/// Works from legal-ball counts only, so an impossible "19.6" can never appear: 120 legal balls is "20",
/// 20 legal balls is "3.2". SportMonks' own overs numbers (which can carry a "19.6") are normalised first.
public enum OversFormatter {
    /// "3.2" for 20 legal balls, "20" for 120, "0" before the first legal ball.
    public static func overs(legalBalls: Int, ballsPerOver: Int = 6) -> String {
        let balls = max(0, legalBalls)
        let completed = balls / ballsPerOver
        let extra = balls % ballsPerOver
        return extra == 0 ? "\(completed)" : "\(completed).\(extra)"
    }

    /// Normalises a SportMonks overs number (19.6 → "20", 3.4 → "3.4").
    public static func overs(sportMonks value: Double, ballsPerOver: Int = 6) -> String {
        overs(legalBalls: SportMonksOvers.legalBalls(fromOvers: value, ballsPerOver: ballsPerOver), ballsPerOver: ballsPerOver)
    }

    /// Overs of a D/L or rain-revised allocation (11.2 → "11.2", 40 → "40").
    public static func allocation(legalBalls: Int, ballsPerOver: Int = 6) -> String {
        overs(legalBalls: legalBalls, ballsPerOver: ballsPerOver)
    }
}
