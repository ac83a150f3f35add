import Foundation

/// One entry of the SportMonks ball-outcome dictionary (`ball.score`, resource "scores").
///
/// Semantics checked against SportMonks' own innings totals:
/// - team runs of a delivery = `runs + bye + leg_bye` (`runs` never contains byes or leg byes);
/// - a wide has no flag of its own: its `name` contains "Wide", `runs` holds all wide runs, `ball` is false;
/// - a no-ball has `noball > 0`; `runs` = bat runs + the no-ball penalty (`noball_runs`); `ball` is TRUE
///   (observed: `ball` means "faced by the batter", so it is not a legal-delivery flag);
/// - a legal delivery ⇔ `ball && noball == 0` (see `isLegalDelivery`).
public struct SportMonksScore: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var name: String
    public var runs: Int
    public var four: Bool
    public var six: Bool
    public var bye: Int
    public var legBye: Int
    public var noball: Int
    public var noballRuns: Int
    public var isWicket: Bool
    public var ball: Bool
    public var out: Bool

    public init(resource: String? = "scores", id: Int, name: String, runs: Int, four: Bool, six: Bool, bye: Int,
                legBye: Int, noball: Int, noballRuns: Int, isWicket: Bool, ball: Bool, out: Bool) {
        self.resource = resource; self.id = id; self.name = name; self.runs = runs; self.four = four; self.six = six
        self.bye = bye; self.legBye = legBye; self.noball = noball; self.noballRuns = noballRuns
        self.isWicket = isWicket; self.ball = ball; self.out = out
    }

    enum CodingKeys: String, CodingKey {
        case resource, id, name, runs, four, six, bye
        case legBye = "leg_bye"
        case noball
        case noballRuns = "noball_runs"
        case isWicket = "is_wicket"
        case ball, out
    }

    /// Runs added to the team total by this delivery: `runs + bye + leg_bye`.
    public var teamRuns: Int { runs + bye + legBye }
    /// True for a wide (detected by name, SportMonks has no wide field).
    public var isWide: Bool { name.localizedCaseInsensitiveContains("wide") }
    /// True for a no-ball.
    public var isNoBall: Bool { noball > 0 }
    /// True when the delivery counts towards the over (not a wide, not a no-ball).
    public var isLegalDelivery: Bool { ball && noball == 0 && !isWide }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(runs, forKey: .runs)
        try c.encode(four, forKey: .four)
        try c.encode(six, forKey: .six)
        try c.encode(bye, forKey: .bye)
        try c.encode(legBye, forKey: .legBye)
        try c.encode(noball, forKey: .noball)
        try c.encode(noballRuns, forKey: .noballRuns)
        try c.encode(isWicket, forKey: .isWicket)
        try c.encode(ball, forKey: .ball)
        try c.encode(out, forKey: .out)
    }
}
