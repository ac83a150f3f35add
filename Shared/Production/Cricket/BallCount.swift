/// A count of legal balls as text, the unit The Hundred's broadcasts show progress in.
public enum BallCount {
    /// "1 ball", "90 balls" ("0 balls" for a negative count).
    public static func text(_ count: Int) -> String {
        let count = max(0, count)
        return count == 1 ? "1 ball" : "\(count) balls"
    }
}
