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

    /// Innings progress in the format's own unit: overs ("12.3") where an over is six balls, balls ("90 balls") in
    /// The Hundred, whose broadcasts count balls (its five-ball sets read as overs would pass 90 balls for 18 overs).
    public static func progress(legalBalls: Int, format: MatchFormat) -> String {
        format.countsBalls ? balls(legalBalls) : overs(legalBalls: legalBalls, ballsPerOver: format.ballsPerOver)
    }

    /// "1 ball", "90 balls".
    public static func balls(_ count: Int) -> String { BallCount.text(count) }

    /// Overs of a D/L or rain-revised allocation (11.2 → "11.2", 40 → "40").
    public static func allocation(legalBalls: Int, ballsPerOver: Int = 6) -> String {
        overs(legalBalls: legalBalls, ballsPerOver: ballsPerOver)
    }
}
