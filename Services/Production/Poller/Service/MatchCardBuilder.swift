import Contracts
import Cricket
import Foundation

/// Pre-formats the schedule card of a fixture (`matches.card`) and decides `is_live`.
enum MatchCardBuilder {
    /// The card of `fixture` (needs includes localteam, visitorteam; league, venue, runs when available).
    static func card(_ fixture: SportMonksFixture) -> MatchCard {
        let home = team(fixture.localteam, id: fixture.localteamId, runs: fixture.runs, ballsPerOver: fixture.ballsPerOver)
        let away = team(fixture.visitorteam, id: fixture.visitorteamId, runs: fixture.runs, ballsPerOver: fixture.ballsPerOver)
        let subtitle = [fixture.round, fixture.league?.name, fixture.venue?.name]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
        let startsAt = startsAt(fixture.startingAt) ?? 0
        return MatchCard(
            matchId: String(fixture.id), startsAt: startsAt, status: fixture.status.rawValue, phase: phase(fixture.status),
            title: "\(home.name) vs \(away.name)", subtitle: subtitle, home: home, away: away,
            statusText: statusText(fixture, startsAt: startsAt))
    }

    /// In play (an innings, a break, an interruption): followers get Live Activities.
    static func isLive(_ status: SportMonksStatus) -> Bool { status.phase == .inPlay }

    static func phase(_ status: SportMonksStatus) -> MatchPhase {
        switch status {
        case .notStarted, .delayed, .postponed: .upcoming
        case .innings, .superOver: .live
        case .inningsBreak, .lunch, .teaBreak, .dinner, .stumps: .inningsBreak
        case .interrupted: .interrupted
        case .finished, .abandoned, .cancelled: .ended
        case .unknown: status.phase == .ended ? .ended : status.phase == .inPlay ? .live : .upcoming
        }
    }

    static func statusText(_ fixture: SportMonksFixture, startsAt: Int64) -> String {
        if let note = fixture.note, !note.isEmpty, fixture.status != .notStarted { return note }
        switch fixture.status {
        case .notStarted:
            let date = Date(timeIntervalSince1970: TimeInterval(startsAt))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.hour, .minute], from: date)
            return String(format: "Starts %02d:%02d UTC", c.hour ?? 0, c.minute ?? 0)
        case .inningsBreak: return "Innings break"
        case .interrupted: return "Play interrupted"
        case .abandoned: return "Match abandoned"
        case .cancelled: return "Match cancelled"
        case .postponed: return "Postponed"
        case .delayed: return "Start delayed"
        default: return fixture.status.rawValue
        }
    }

    /// One side of the card: "187/6 (20)", "245 & 180/4 (52.3)"; in balls when an over is not six of them (The
    /// Hundred: "141/9 (90 balls)", its `runs[].overs` counting five-ball sets).
    static func team(_ team: SportMonksTeam?, id: Int?, runs: [SportMonksRun]?, ballsPerOver: Int = 6) -> MatchCard.Team {
        let teamId = team?.id ?? id
        let innings = (runs ?? []).filter { $0.teamId == teamId }.sorted { $0.inning < $1.inning }
        let score = innings.map { row in
            let overs: String
            if ballsPerOver != 6 {
                overs = BallCount.text(SportMonksOvers.legalBalls(fromOvers: row.overs, ballsPerOver: ballsPerOver))
            } else {
                overs = row.overs == row.overs.rounded() ? String(Int(row.overs)) : String(row.overs)
            }
            return row.wickets >= 10 ? "\(row.score) (\(overs))" : "\(row.score)/\(row.wickets) (\(overs))"
        }.joined(separator: " & ")
        let name = team?.name ?? teamId.map { "Team \($0)" } ?? "TBC"
        return MatchCard.Team(name: name, abbr: team?.code ?? String(name.prefix(3)).uppercased(), score: score,
                              logoUrl: team?.imagePath)
    }

    /// "2026-10-09T13:00:00.000000Z" → Unix seconds.
    static func startsAt(_ text: String?) -> Int64? {
        guard let text, text.count >= 19 else { return nil }
        let digits = text.prefix(19).split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard digits.count == 6 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: digits[0], month: digits[1], day: digits[2], hour: digits[3],
                                        minute: digits[4], second: digits[5])
        return calendar.date(from: components).map { Int64($0.timeIntervalSince1970) }
    }
}
