import Cricket
import CricsheetReplay
import Foundation
import Testing

/// Scoring rules the 21 files do not exercise, on a small hand-written Cricsheet match.
@Suite struct RulesTests {
    static let json = """
    {"meta":{"data_version":"1.1.0","created":"2024-01-01","revision":1},
     "info":{"balls_per_over":6,"dates":["2024-01-01"],"gender":"male","match_type":"T20","outcome":{"winner":"A","by":{"runs":5}},
      "overs":20,"players":{"A":["a1","a2","a3","a4"],"B":["b1","b2"]},
      "registry":{"people":{"a1":"0000000a","a2":"0000000b","a3":"0000000c","a4":"0000000d","b1":"000000b1","b2":"000000b2"}},
      "season":2024,"team_type":"club","teams":["A","B"],"toss":{"decision":"bat","winner":"A"},"venue":"Ground"},
     "innings":[{"team":"A","absent_hurt":["a4"],"penalty_runs":{"post":5},"overs":[{"over":0,"deliveries":[
      {"batter":"a1","bowler":"b1","non_striker":"a2","runs":{"batter":0,"extras":3,"total":3},"extras":{"wides":3}},
      {"batter":"a1","bowler":"b1","non_striker":"a2","runs":{"batter":2,"extras":2,"total":4},"extras":{"noballs":1,"byes":1}},
      {"batter":"a1","bowler":"b1","non_striker":"a2","runs":{"batter":0,"extras":1,"total":1},"extras":{"legbyes":1},
       "wickets":[{"kind":"retired hurt","player_out":"a2"}]},
      {"batter":"a1","bowler":"b1","non_striker":"a3","runs":{"batter":1,"extras":0,"total":1},
       "wickets":[{"kind":"run out","player_out":"a3","fielders":[{"name":"b2"}]}]},
      {"batter":"a1","bowler":"b1","non_striker":"a2","runs":{"batter":4,"extras":5,"total":9},"extras":{"penalty":5}},
      {"batter":"a1","bowler":"b1","non_striker":"a2","runs":{"batter":0,"extras":0,"total":0},
       "wickets":[{"kind":"retired out","player_out":"a1"}]},
      {"batter":"a2","bowler":"b1","non_striker":"a2","runs":{"batter":0,"extras":0,"total":0},
       "wickets":[{"kind":"caught","player_out":"a2","fielders":[{"name":"b2"}]}]},
      {"batter":"a2","bowler":"b1","non_striker":"a2","runs":{"batter":0,"extras":0,"total":0}}
     ]}]}]}
    """

    @Test func retirementsRunOutsPenaltiesAndExtras() throws {
        let match = try CricsheetMatch.decode(from: Data(Self.json.utf8), id: 42)
        #expect(match.info.season == "2024")
        let fixture = SportMonksFixtureBuilder(match: match).fixture(at: match.finalPosition)
        let run = try #require(fixture.runs?.first)
        // 3 + 4 + 1 + 1 + 9 + 0 + 0 + 0 = 18, plus 5 post-innings penalty runs.
        #expect(run.score == 23)
        // run out + retired out + caught; retired hurt is not a wicket.
        #expect(run.wickets == 3)
        // wide and no-ball do not count: 6 legal balls.
        #expect(run.overs == 1)
        let bowler = try #require(fixture.bowling?.first)
        // conceded: wide 3 + (2 bat + 1 nb) + 1 bat + 4 bat = 11; byes, leg byes and penalties are not charged.
        #expect(bowler.runs == 11 && bowler.wickets == 1 && bowler.overs == 1 && bowler.wide == 3 && bowler.noball == 1)
        #expect(bowler.medians == 0)
        let cards = Dictionary(uniqueKeysWithValues: (fixture.batting ?? []).map { ($0.playerId, $0) })
        let a1 = try #require(cards[0x0a])
        // faced every delivery but the wide: 5 (no-ball counts as a ball faced).
        #expect(a1.score == 7 && a1.ball == 5 && a1.fourX == 1)
        #expect(a1.scoreId == ScoreDictionary.id(for: "Retired Out") && a1.bowlingPlayerId == nil)
        let a3 = try #require(cards[0x0c])
        #expect(a3.runoutById == 0xb2 && a3.bowlingPlayerId == nil && a3.fowScore == 9 && a3.fowBalls == 0.2)
        let a2 = try #require(cards[0x0b])
        #expect(a2.catchStumpPlayerId == 0xb2 && a2.bowlingPlayerId == 0xb1 && a2.scoreId == 54)
        let a4 = try #require(cards[0x0d])
        #expect(a4.scoreId == ScoreDictionary.id(for: "Absent Hurt") && a4.ball == 0)
        let extras = try #require(fixture.scoreboards?.first { $0.type == "extra" })
        #expect(extras.wide == 3 && extras.noballRuns == 1 && extras.noballBalls == 1 && extras.bye == 1
                && extras.legBye == 1 && extras.penalty == 10)
        let balls = try #require(fixture.balls)
        #expect(balls.map(\.ball) == [0.1, 0.1, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
        #expect(balls[1].score.name == "1 No Ball + 2 Runs + 1 Bye")
        #expect(balls[1].score.runs == 3 && balls[1].score.bye == 1 && balls[1].score.noballRuns == 1)
        #expect(balls[2].score.isWicket == false && balls[2].batsmanoutId == 0x0b)
        #expect(balls[3].score.name == "1 Run + Run Out" && balls[3].runoutById == 0xb2 && balls[3].score.isWicket)
        // Balls agree with the runs row except the post-innings penalty (not on any ball).
        #expect(InningsScore.from(balls: balls, scoreboard: "S1") == InningsScore(runs: 18, wickets: 3, legalBalls: 6))
    }

    @Test func decodeErrorNamesMatchAndPath() {
        let broken = Self.json.replacingOccurrences(of: "\"total\":3}", with: "\"total\":\"3\"}")
        do {
            _ = try CricsheetMatch.decode(from: Data(broken.utf8), id: 42)
            Issue.record("expected failure")
        } catch {
            guard case .invalidField(42, let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == "innings[0].overs[0].deliveries[0].runs.total")
        }
    }
}
