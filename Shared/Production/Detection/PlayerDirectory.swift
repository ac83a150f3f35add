import Cricket

/// Player names by id, gathered from a fixture's lineup and the players embedded in its balls.
public struct PlayerDirectory: Sendable {
    private var full: [Int: String] = [:]
    private var short: [Int: String] = [:]

    public init() {}

    /// Collects every player the fixture names.
    public init(fixture: SportMonksFixture) {
        for player in fixture.lineup ?? [] { add(player) }
        guard let balls = fixture.balls else { return }
        // Ids first: copying a ball's players out only for the few not seen yet.
        for index in balls.indices {
            if let id = balls[index].batsman?.id, full[id] == nil, let batsman = balls[index].batsman { add(batsman) }
            if let id = balls[index].bowler?.id, full[id] == nil, let bowler = balls[index].bowler { add(bowler) }
        }
    }

    /// Adds or replaces one player.
    public mutating func add(_ player: SportMonksPlayer) {
        let name = Self.fullName(player)
        full[player.id] = name
        short[player.id] = Self.shortName(player, full: name)
    }

    /// "Rohit Sharma"; "Player 123" when the fixture never named them.
    public func fullName(_ id: Int?) -> String {
        guard let id else { return "Unknown" }
        return full[id] ?? "Player \(id)"
    }

    /// The surname as scorecards print fielders and bowlers: "Kohli".
    public func shortName(_ id: Int?) -> String {
        guard let id else { return "Unknown" }
        return short[id] ?? "Player \(id)"
    }

    /// True when the fixture names this player.
    public func knows(_ id: Int?) -> Bool { id.map { full[$0] != nil } ?? false }

    static func fullName(_ player: SportMonksPlayer) -> String {
        if let name = player.fullname, !name.isEmpty { return name }
        let parts = [player.firstname, player.lastname].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? "Player \(player.id)" : parts.joined(separator: " ")
    }

    static func shortName(_ player: SportMonksPlayer, full: String) -> String {
        if let last = player.lastname, !last.isEmpty { return last }
        return full.split(separator: " ").last.map(String.init) ?? full
    }
}
