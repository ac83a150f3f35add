import SharedTestSupport
import Cricket
import CricsheetReplay
import Foundation
import Testing

/// For every Cricsheet file: the finished fixture equals an independent computation from the raw JSON.
@Suite struct AllMatchesTests {
    struct ExpectedInnings {
        var runs = 0, wickets = 0, legal = 0
        var batters: [String: (runs: Int, balls: Int)] = [:]
        var bowlerWickets: [String: Int] = [:]
    }

    /// Written straight from the Cricsheet format description, on JSONSerialization dictionaries.
    static func expected(_ raw: [String: Any]) -> [ExpectedInnings] {
        var result: [ExpectedInnings] = []
        for inning in raw["innings"] as! [[String: Any]] {
            let overs = inning["overs"] as? [[String: Any]] ?? []
            if overs.isEmpty { continue }
            var e = ExpectedInnings()
            if let penalty = inning["penalty_runs"] as? [String: Int] { e.runs += (penalty["pre"] ?? 0) + (penalty["post"] ?? 0) }
            for over in overs {
                for d in over["deliveries"] as! [[String: Any]] {
                    let runs = d["runs"] as! [String: Any]
                    let extras = d["extras"] as? [String: Any] ?? [:]
                    let isWide = extras["wides"] != nil, isNoBall = extras["noballs"] != nil
                    e.runs += runs["total"] as! Int
                    if !isWide && !isNoBall { e.legal += 1 }
                    let batter = d["batter"] as! String, nonStriker = d["non_striker"] as! String
                    var line = e.batters[batter] ?? (0, 0)
                    line.runs += runs["batter"] as! Int
                    if !isWide { line.balls += 1 }
                    e.batters[batter] = line
                    if e.batters[nonStriker] == nil { e.batters[nonStriker] = (0, 0) }
                    let bowler = d["bowler"] as! String
                    if e.bowlerWickets[bowler] == nil { e.bowlerWickets[bowler] = 0 }
                    for w in d["wickets"] as? [[String: Any]] ?? [] {
                        let kind = w["kind"] as! String
                        // A batter out without facing or standing at the crease (timed out) is on the card too.
                        let out = w["player_out"] as! String
                        if e.batters[out] == nil { e.batters[out] = (0, 0) }
                        if kind != "retired hurt" && kind != "retired not out" { e.wickets += 1 }
                        if ["bowled", "caught", "caught and bowled", "lbw", "stumped", "hit wicket"].contains(kind) {
                            e.bowlerWickets[bowler]! += 1
                        }
                    }
                }
            }
            result.append(e)
        }
        return result
    }

    @Test("the data directory holds exactly the 25 replayed matches")
    func everyFileIsReplayed() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: DataDirectory.cricsheet.path).filter { $0.hasSuffix(".json") }
        let ids = Set(names.compactMap { Int($0.dropLast(5)) })
        #expect(DataDirectory.matchIds.count == 25)
        #expect(ids == Set(DataDirectory.matchIds), "missing: \(Set(DataDirectory.matchIds).subtracting(ids).sorted()), not replayed: \(ids.subtracting(DataDirectory.matchIds).sorted())")
    }

    @Test(arguments: DataDirectory.matchIds)
    func finishedFixtureMatchesIndependentScorecard(id: Int) throws {
        let raw = try DataDirectory.raw(id)
        let people = ((raw["info"] as! [String: Any])["registry"] as! [String: Any])["people"] as! [String: String]
        func pid(_ name: String) -> Int { Int(people[name]!, radix: 16)! }
        let match = try DataDirectory.match(id)
        let data = try SportMonksFixtureBuilder(match: match).envelope(at: match.finalPosition)
        let fixture = try SportMonksFixture.decode(from: data)
        #expect(fixture.id == id)
        let expected = Self.expected(raw)
        let runs = try #require(fixture.runs)
        try #require(runs.count == expected.count, "innings count")
        let fromBalls = fixture.inningsScoresFromBalls()
        for (index, e) in expected.enumerated() {
            let row = runs[index]
            let board = "S\(index + 1)"
            #expect(row.scoreboard == board)
            #expect(row.score == e.runs, "\(id) \(board) runs")
            #expect(row.wickets == e.wickets, "\(id) \(board) wickets")
            // Overs in the match's own overs: five-ball sets in The Hundred (90 balls = 18.0).
            let perOver = (raw["info"] as! [String: Any])["balls_per_over"] as? Int ?? 6
            #expect(Int((row.overs * 10).rounded()) == (e.legal / perOver) * 10 + e.legal % perOver, "\(id) \(board) overs \(row.overs)")
            #expect(fromBalls[board] == InningsScore(runs: e.runs, wickets: e.wickets, legalBalls: e.legal), "\(id) \(board) balls")
            let batting = (fixture.batting ?? []).filter { $0.scoreboard == board }
            #expect(batting.count == e.batters.count, "\(id) \(board) batters")
            for (name, line) in e.batters {
                let card = batting.first { $0.playerId == pid(name) }
                #expect(card?.score == line.runs, "\(id) \(board) \(name) runs")
                #expect(card?.ball == line.balls, "\(id) \(board) \(name) balls")
            }
            let bowling = (fixture.bowling ?? []).filter { $0.scoreboard == board }
            #expect(bowling.count == e.bowlerWickets.count, "\(id) \(board) bowlers")
            for (name, wickets) in e.bowlerWickets {
                #expect(bowling.first { $0.playerId == pid(name) }?.wickets == wickets, "\(id) \(board) \(name) wickets")
            }
            let totalRow = (fixture.scoreboards ?? []).first { $0.scoreboard == board && $0.type == "total" }
            #expect(totalRow?.total == e.runs && totalRow?.wickets == e.wickets)
        }
    }
}
