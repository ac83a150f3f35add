/// How a batter left the crease, named as the Laws of Cricket name it, read from a SportMonks score name
/// ("Catch Out", "1 Bye + Run Out", "Catch Out + Timed Out", …).
///
/// Covers every kind Cricsheet records: caught, bowled, lbw, stumped, run out, hit wicket, retired out,
/// retired hurt, retired not out, obstructing the field, handled the ball, hit the ball twice, timed out.
/// Retired hurt and retired not out are not wickets: they do not count against the batting side.
public enum DismissalKind: String, Sendable, Codable, CaseIterable {
    case caught, bowled, lbw, stumped, runOut, hitWicket, retiredOut, retiredHurt, retiredNotOut, obstructing
    case handledBall, hitBallTwice, timedOut, other

    /// Classifies a whole score name by its first dismissal; `.other` when it names none.
    public init(scoreName name: String) {
        self = Self.all(in: name).first ?? .other
    }

    /// Classifies one " + "-separated part of a score name; nil when the part is no dismissal ("1 Run", "FOUR").
    public init?(part: some StringProtocol) {
        let lower = part.lowercased()
        if lower.contains("run out") { self = .runOut }
        else if lower.contains("stump") { self = .stumped }
        else if lower.contains("lbw") { self = .lbw }
        else if lower.contains("catch") || lower.contains("caught") { self = .caught }
        else if lower.contains("twice") { self = .hitBallTwice }
        else if lower.contains("hit wicket") { self = .hitWicket }
        else if lower.contains("bowled") { self = .bowled }
        else if lower.contains("retired hurt") || lower.contains("absent hurt") { self = .retiredHurt }
        else if lower.contains("retired not out") { self = .retiredNotOut }
        else if lower.contains("retired") { self = .retiredOut }
        else if lower.contains("obstruct") { self = .obstructing }
        else if lower.contains("handled") { self = .handledBall }
        else if lower.contains("timed") { self = .timedOut }
        else { return nil }
    }

    /// Every dismissal a score name records, in the order it names them: "Catch Out + Timed Out" → [caught, timedOut].
    public static func all(in name: String) -> [DismissalKind] {
        name.split(separator: "+").compactMap { DismissalKind(part: $0) }
    }

    /// Dismissals credited to the bowler (they count for five-fors and hat-tricks).
    public var creditsBowler: Bool {
        switch self {
        case .caught, .bowled, .lbw, .stumped, .hitWicket: true
        case .runOut, .retiredOut, .retiredHurt, .retiredNotOut, .obstructing, .handledBall, .hitBallTwice, .timedOut,
             .other: false
        }
    }

    /// False for retired hurt and retired not out: the batter may come back, and the side loses no wicket.
    public var countsAgainstTeam: Bool {
        switch self {
        case .retiredHurt, .retiredNotOut: false
        default: true
        }
    }
}

extension SportMonksScore {
    /// The dismissals of this delivery, in the order the name gives them (empty when it records none); a wicket
    /// whose name says no more is one `.other`. Reads the name: callers on a hot path ask only for wickets and
    /// names that mention a retirement.
    public var dismissals: [DismissalKind] {
        let kinds = DismissalKind.all(in: name)
        if isWicket, !kinds.contains(where: \.countsAgainstTeam) { return [.other] + kinds }
        return kinds
    }

    /// Wickets the delivery costs the batting side: one per dismissal that counts against it (at least one when
    /// `is_wicket`), none for a retirement hurt or not out.
    public var teamWickets: Int {
        guard isWicket else { return 0 }
        return max(1, DismissalKind.all(in: name).count { $0.countsAgainstTeam })
    }
}
