import Contracts

/// The `include=` parameter of a fixture request: which relations to embed.
///
/// `include=localteam,balls.score` embeds `localteam`, and `balls` with each ball's `score` (a nested
/// include implies its parent). Keys not asked for are absent from the reply, as SportMonks does.
public struct IncludeSet: Sendable, Equatable {
    /// Relations the fake can embed in a fixture, in the server's order.
    public static let fixtureRelations = ["league", "season", "localteam", "visitorteam", "batting", "bowling", "runs",
                                          "scoreboards", "lineup", "balls", "winnerteam", "tosswon", "venue", "stage"]
    /// Relations embedded in each ball when asked for as `balls.<name>`.
    public static let ballRelations = ["batsman", "bowler", "score", "team"]

    public private(set) var relations: Set<String> = []
    public private(set) var ballIncludes: Set<String> = []

    /// Parses a comma-separated include list (nil or empty: nothing).
    public init(_ parameter: String?) {
        for item in (parameter ?? "").split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ".").map(String.init)
            guard let first = parts.first, Self.fixtureRelations.contains(first) else { continue }
            relations.insert(first)
            if first == "balls", parts.count > 1, Self.ballRelations.contains(parts[1]) { ballIncludes.insert(parts[1]) }
        }
    }

    /// Every relation, every ball relation.
    public static let all = IncludeSet(
        (fixtureRelations + ballRelations.map { "balls.\($0)" }).joined(separator: ","))

    /// The fixture object (every relation present) reduced to the relations asked for.
    public func apply(to fixture: JSONValue) -> JSONValue {
        guard case .object(var object) = fixture else { return fixture }
        for name in Self.fixtureRelations where !relations.contains(name) { object[name] = nil }
        if relations.contains("balls"), case .array(let balls)? = object["balls"] {
            object["balls"] = .array(balls.map { ball in
                guard case .object(var members) = ball else { return ball }
                for name in Self.ballRelations where !ballIncludes.contains(name) { members[name] = nil }
                return .object(members)
            })
        }
        return .object(object)
    }
}
