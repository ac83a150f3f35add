/// Scoring rules used by the replay (Laws of Cricket as Cricsheet records them).
public enum CricketRules {
    /// Dismissal kinds that do not count against the batting side.
    public static let notWicketKinds: Set<String> = ["retired hurt", "retired not out"]
    /// Dismissal kinds credited to the bowler.
    public static let bowlerCreditedKinds: Set<String> = [
        "bowled", "caught", "caught and bowled", "lbw", "stumped", "hit wicket",
    ]

    /// True when `kind` is a team wicket ("retired out" is; "retired hurt" / "retired not out" are not).
    public static func isTeamWicket(_ kind: String) -> Bool { !notWicketKinds.contains(kind) }
    /// True when `kind` counts in the bowler's wickets (run out, retirements, obstructing do not).
    public static func creditsBowler(_ kind: String) -> Bool { bowlerCreditedKinds.contains(kind) }
}
