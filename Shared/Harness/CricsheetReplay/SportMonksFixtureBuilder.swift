import Cricket
import Foundation

/// Turns a Cricsheet match at a replay position into the SportMonks fixture the real API would serve,
/// with includes league, season, stage, localteam, visitorteam, batting, bowling, runs, scoreboards,
/// lineup, balls (each with batsman, bowler, score, team), winnerteam, tosswon, venue.
///
/// Ids are deterministic: fixture id = Cricsheet match id; players/officials = registry hex id as a
/// number; teams, venue, league, season, stage = `StableIDs.entity`. Facts Cricsheet does not carry
/// (dates of birth, batting styles, playing roles, countries, capacity) are `null`.
public struct SportMonksFixtureBuilder: Sendable {
    /// Knobs of the synthetic parts of the reply.
    public struct Options: Sendable, Hashable {
        /// Hour (UTC) of `starting_at` on the match's first day.
        public var startHourUTC: Int
        /// Spacing of the balls' `updated_at`.
        public var secondsPerDelivery: Int
        /// When the first day starts, if not `startHourUTC` on the match's first date: a replay that starts now
        /// dates its `starting_at` and its balls from now, as the real feed would.
        public var firstDayStart: Date?

        public init(startHourUTC: Int = 14, secondsPerDelivery: Int = 40, firstDayStart: Date? = nil) {
            self.startHourUTC = startHourUTC; self.secondsPerDelivery = secondsPerDelivery
            self.firstDayStart = firstDayStart
        }
    }

    public let match: CricsheetMatch
    public let options: Options
    let teams: [String: SportMonksTeam]
    let players: [String: SportMonksPlayer]
    let times: Timestamps
    let leagueId: Int, seasonId: Int, stageId: Int, venueId: Int
    /// Final total of every played innings, by index into `match.innings` (for targets).
    let finalTotals: [Int: Int]

    public init(match: CricsheetMatch, options: Options = Options()) {
        self.match = match
        self.options = options
        finalTotals = Dictionary(MatchReplay(match: match).innings.map { ($0.matchInningsIndex, $0.runs) },
                                 uniquingKeysWith: { first, _ in first })
        let info = match.info
        times = Timestamps(firstDay: info.dates.first, startHourUTC: options.startHourUTC,
                           secondsPerDelivery: options.secondsPerDelivery, days: MatchDays(match: match), start: options.firstDayStart)
        let eventName = info.event?.name ?? "\(info.matchType) \(info.season)"
        leagueId = StableIDs.entity("league", eventName)
        seasonId = StableIDs.entity("season", eventName + "/" + info.season)
        stageId = StableIDs.entity("stage", eventName + "/" + info.season + "/" + (info.event?.stage ?? ""))
        venueId = StableIDs.entity("venue", info.venue ?? "unknown")
        let reference = times.reference
        var teams: [String: SportMonksTeam] = [:]
        var usedIds: Set<Int> = []
        for name in info.teams {
            var id = StableIDs.entity("team", name)
            while usedIds.contains(id) { id += 1 }
            usedIds.insert(id)
            teams[name] = SportMonksTeam(id: id, name: name, code: Self.teamCode(name),
                                         imagePath: Self.placeholderImage, countryId: nil,
                                         nationalTeam: info.teamType.map { $0 == "international" },
                                         updatedAt: reference)
        }
        self.teams = teams
        var names: Set<String> = Set(info.players.values.flatMap { $0 })
        for inning in match.innings {
            names.formUnion(inning.absentHurt)
            for over in inning.overs {
                for d in over.deliveries {
                    names.insert(d.batter); names.insert(d.bowler); names.insert(d.nonStriker)
                    for w in d.wickets ?? [] {
                        names.insert(w.playerOut)
                        for f in w.fielders ?? [] { if let n = f.name { names.insert(n) } }
                    }
                }
            }
        }
        let gender = info.gender.map { $0 == "female" ? "f" : "m" }
        var players: [String: SportMonksPlayer] = [:]
        for name in names {
            let (first, last) = Self.splitName(name)
            players[name] = SportMonksPlayer(
                id: StableIDs.person(name: name, registryHex: match.registryId(of: name)), countryId: nil,
                firstname: first, lastname: last, fullname: name, imagePath: Self.placeholderImage,
                dateofbirth: nil, gender: gender, battingstyle: nil, bowlingstyle: nil, position: nil,
                updatedAt: reference)
        }
        self.players = players
    }

    /// The image SportMonks uses when it has none.
    public static let placeholderImage = "https://cdn.sportmonks.com/images/cricket/placeholder.png"

    /// The team id used for `name` in every fixture of this match.
    public func teamId(_ name: String) -> Int? { teams[name]?.id }
    /// The player id used for `name` (registry hex id as a number).
    public func playerId(_ name: String) -> Int { players[name]?.id ?? StableIDs.person(name: name, registryHex: match.registryId(of: name)) }

    /// The fixture as SportMonks would serve it at `position`.
    public func fixture(at position: ReplayPosition) -> SportMonksFixture {
        let bowled = position.phase == .notStarted ? 0 : min(position.deliveries, match.totalDeliveries)
        let replay = MatchReplay(match: match, deliveries: bowled)
        let info = match.info
        let started = position.phase != .notStarted
        let ended = position.phase == .finished || position.phase == .abandoned

        var f = SportMonksFixture(id: match.id, status: status(position, replay))
        f.leagueId = leagueId
        f.seasonId = seasonId
        f.stageId = stageId
        f.round = round()
        f.localteamId = teams[info.teams[0]]?.id
        f.visitorteamId = info.teams.count > 1 ? teams[info.teams[1]]?.id : nil
        f.startingAt = times.startingAt
        f.type = formatType()
        f.live = started
        f.lastPeriod = .null
        f.note = note(position, replay)
        f.venueId = venueId
        f.tossWonTeamId = started ? info.toss.flatMap { teams[$0.winner]?.id } : nil
        let winner = ended ? info.outcome.effectiveWinner.flatMap { teams[$0] } : nil
        f.winnerTeamId = winner?.id
        f.drawNoresult = .null
        f.firstUmpireId = official(info.officials?.umpires, 0)
        f.secondUmpireId = official(info.officials?.umpires, 1)
        f.tvUmpireId = official(info.officials?.tvUmpires, 0)
        f.refereeId = official(info.officials?.matchReferees, 0)
        f.manOfMatchId = position.phase == .finished ? info.playerOfMatch?.first.map(playerId) : nil
        f.manOfSeriesId = nil
        f.totalOversPlayed = info.overs
        f.elected = started ? info.toss.map { $0.decision == "bat" ? "batting" : "bowling" } : nil
        f.superOver = replay.innings.contains { $0.superOver }
        let main = replay.innings.filter { !$0.superOver }
        f.followOn = main.count >= 3 && main[2].team == main[1].team
        applyRevisedTarget(to: &f, position: position, replay: replay)
        f.weatherReport = .array([])

        f.league = SportMonksLeague(id: leagueId, seasonId: seasonId, countryId: nil,
                                    name: info.event?.name ?? formatType(), code: formatType(),
                                    imagePath: Self.placeholderImage, type: "phase", updatedAt: times.reference)
        f.season = SportMonksSeason(id: seasonId, leagueId: leagueId, name: info.season, code: info.season,
                                    updatedAt: times.reference)
        f.localteam = teams[info.teams[0]]
        f.visitorteam = info.teams.count > 1 ? teams[info.teams[1]] : nil
        f.batting = battingRows(replay)
        f.bowling = bowlingRows(replay)
        f.runs = runRows(replay)
        f.scoreboards = scoreboardRows(replay)
        f.lineup = lineup()
        f.balls = ballRows(replay)
        f.winnerteam = winner
        f.tosswon = started ? info.toss.flatMap { teams[$0.winner] } : nil
        f.venue = SportMonksVenue(id: venueId, countryId: nil, name: info.venue, city: info.city,
                                  imagePath: Self.placeholderImage, capacity: nil, floodlight: nil,
                                  updatedAt: times.reference)
        f.stage = SportMonksStage(id: stageId, leagueId: leagueId, seasonId: seasonId,
                                  name: info.event?.stage ?? info.event?.name, code: nil, type: nil,
                                  standings: false, updatedAt: times.reference)
        return f
    }

    /// The `{"data": {...}}` reply body of GET /fixtures/{id} at `position`.
    public func envelope(at position: ReplayPosition) throws -> Data {
        try fixture(at: position).encodedEnvelope()
    }

    // MARK: - Fixture fields

    func status(_ position: ReplayPosition, _ replay: MatchReplay) -> SportMonksStatus {
        switch position.phase {
        case .notStarted: return .notStarted
        case .inningsBreak: return .inningsBreak
        case .interrupted: return .interrupted
        case .lunch: return .lunch
        case .tea: return .teaBreak
        case .stumps: return .stumps(day: times.days.dayNumber(afterDeliveries: position.deliveries))
        case .abandoned: return .abandoned
        case .finished: return .finished
        case .inningsInProgress:
            guard let current = replay.current else { return .innings(1) }
            if current.superOver { return .superOver }
            return .innings(replay.innings.filter { !$0.superOver }.count)
        }
    }

    func note(_ position: ReplayPosition, _ replay: MatchReplay) -> String? {
        switch position.phase {
        case .notStarted: return nil
        case .finished, .abandoned: return ResultText.result(of: match.info.outcome)
        case .inningsInProgress, .inningsBreak, .interrupted, .lunch, .tea, .stumps: break
        }
        guard let current = replay.current else { return nil }
        // In a break the innings to come decides the target; while playing, the current one.
        let chasingIndex: Int?
        if position.phase == .inningsBreak {
            if current.declared { return "\(current.team) declared at \(current.runs)/\(current.wickets)" }
            chasingIndex = nextPlayedInnings(after: current.matchInningsIndex)
        } else {
            chasingIndex = current.matchInningsIndex
        }
        guard let index = chasingIndex, let target = target(forInnings: index, replay: replay) else { return nil }
        return ResultText.target(runs: target.runs, revisedOvers: target.revisedOvers)
    }

    /// The target of innings `index` when it is a chase (last main innings, or second of a super-over pair).
    func target(forInnings index: Int, replay: MatchReplay) -> (runs: Int, revisedOvers: Double?)? {
        let innings = match.innings
        let inning = innings[index]
        func total(_ i: Int) -> Int { finalTotals[i] ?? 0 }
        if inning.superOver {
            guard index > 0, innings[index - 1].superOver, innings[index - 1].team != inning.team,
                  (innings[..<index].filter { $0.superOver }.count % 2) == 1 else { return nil }
            return (total(index - 1) + 1, nil)
        }
        let mainIndexes = innings.indices.filter { !innings[$0].superOver && innings[$0].deliveryCount > 0 }
        let isLimited = match.info.overs != nil
        let chaseIndex = isLimited ? 1 : 3
        guard mainIndexes.count > chaseIndex, mainIndexes[chaseIndex] == index else { return nil }
        let revised = revisedOvers(of: inning)
        if let runs = inning.target?.runs { return (runs, revised) }
        let earlier = mainIndexes.prefix(chaseIndex)
        let opponents = earlier.filter { innings[$0].team != inning.team }.map(total).reduce(0, +)
        let own = earlier.filter { innings[$0].team == inning.team }.map(total).reduce(0, +)
        return (opponents - own + 1, revised)
    }

    /// Target overs when they differ from the scheduled overs (a D/L revision or a shortened match).
    func revisedOvers(of inning: CricsheetInnings) -> Double? {
        guard let overs = inning.target?.overs, let scheduled = match.info.overs else { return nil }
        return overs != Double(scheduled) || match.info.outcome.method == "D/L" ? overs : nil
    }

    func nextPlayedInnings(after index: Int) -> Int? {
        match.innings.indices.first { $0 > index && match.innings[$0].deliveryCount > 0 }
    }

    /// Fills `*_dl_data`, `rpc_target`, `rpc_overs` once the chase with a revised target has begun (or is next).
    func applyRevisedTarget(to f: inout SportMonksFixture, position: ReplayPosition, replay: MatchReplay) {
        f.localteamDlData = SportMonksDLData()
        f.visitorteamDlData = SportMonksDLData()
        f.rpcOvers = .null
        f.rpcTarget = .null
        guard position.phase != .notStarted, let current = replay.current else { return }
        let visible = position.phase == .inningsBreak
            ? [current.matchInningsIndex, nextPlayedInnings(after: current.matchInningsIndex)].compactMap { $0 }
            : [current.matchInningsIndex]
        let seen = Set(replay.innings.map(\.matchInningsIndex)).union(visible)
        for index in seen.sorted() {
            let inning = match.innings[index]
            guard !inning.superOver, let overs = revisedOvers(of: inning), let runs = inning.target?.runs else { continue }
            let data = SportMonksDLData(score: runs, overs: overs, wicketsOut: nil)
            if inning.team == match.info.teams.first { f.localteamDlData = data } else { f.visitorteamDlData = data }
            f.rpcTarget = .int(runs)
            f.rpcOvers = overs == overs.rounded() ? .int(Int(overs)) : .double(overs)
        }
    }

    func round() -> String {
        if let stage = match.info.event?.stage { return stage }
        if let number = match.info.event?.matchNumber {
            return "\(number)\(SportMonksStatus.ordinalSuffix(number)) \(formatType())"
        }
        return match.info.event?.name ?? formatType()
    }

    /// SportMonks `type`: "T20I", "T20", "ODI", "Test", "List A", "4day".
    func formatType() -> String {
        let international = match.info.teamType == "international"
        switch match.info.matchType.uppercased() {
        case "T20", "IT20": return international ? "T20I" : "T20"
        case "ODI": return "ODI"
        case "TEST": return "Test"
        case "ODM": return "List A"
        case "MDM": return "4day"
        default: return match.info.matchType
        }
    }

    func official(_ names: [String]?, _ index: Int) -> Int? {
        guard let names, index < names.count else { return nil }
        return StableIDs.person(name: names[index], registryHex: match.registryId(of: names[index]))
    }

    func lineup() -> [SportMonksPlayer] {
        var rows: [SportMonksPlayer] = []
        for team in match.info.teams {
            guard let teamId = teams[team]?.id else { continue }
            for name in match.info.players[team] ?? [] {
                guard var player = players[name] else { continue }
                player.lineup = .init(teamId: teamId, captain: false, wicketkeeper: false, substitution: false)
                rows.append(player)
            }
        }
        return rows
    }

    static func teamCode(_ name: String) -> String {
        let words = name.split(separator: " ")
        if words.count == 1 { return String(name.prefix(3)).uppercased() }
        return String(words.compactMap(\.first)).uppercased()
    }

    static func splitName(_ name: String) -> (String?, String?) {
        guard let space = name.firstIndex(of: " ") else { return ("", name) }
        return (String(name[..<space]), String(name[name.index(after: space)...]))
    }
}
