import SharedTestSupport
import Cricket
import CricsheetReplay
import Foundation
import Testing

/// Status and note transitions over whole replays, D/L targets, super overs, a Test declaration.
@Suite struct TransitionTests {
    /// Status strings over the replay timeline with consecutive repeats collapsed (without the days'
    /// lunch, tea and stumps unless `days`).
    func statuses(_ id: Int, days: Bool = false) throws -> [String] {
        let match = try DataDirectory.match(id)
        let builder = SportMonksFixtureBuilder(match: match)
        var out: [String] = []
        for position in match.replayTimeline() where days || ![.lunch, .tea, .stumps].contains(position.phase) {
            let raw = builder.fixture(at: position).status.rawValue
            if out.last != raw { out.append(raw) }
        }
        return out
    }

    @Test func ordinaryT20() throws {
        #expect(try statuses(1304076) == ["NS", "1st Innings", "Innings Break", "2nd Innings", "Finished"])
        let match = try DataDirectory.match(1304076)
        let builder = SportMonksFixtureBuilder(match: match)
        let ns = builder.fixture(at: .notStarted)
        #expect(ns.live == false && ns.note == nil && ns.tossWonTeamId == nil && ns.balls == [] && ns.runs == [])
        let first = builder.fixture(at: .inProgress(10))
        #expect(first.note == nil && first.live == true && first.runs?.count == 1)
        let breakNote = builder.fixture(at: ReplayPosition(deliveries: match.innings[0].deliveryCount, phase: .inningsBreak)).note
        #expect(breakNote == "Target 218 runs")
        let done = builder.fixture(at: match.finalPosition)
        #expect(done.note == "Rajasthan Royals won by 7 runs")
        #expect(done.winnerTeamId == builder.teamId("Rajasthan Royals") && done.winnerteam?.name == "Rajasthan Royals")
        #expect(done.manOfMatchId != nil)
    }

    @Test func chaseWonByWickets() throws {
        let match = try DataDirectory.match(1426312)
        #expect(SportMonksFixtureBuilder(match: match).fixture(at: match.finalPosition).note == "Kolkata Knight Riders won by 8 wickets")
    }

    @Test func noResultEndsInterruptedThenAbandoned() throws {
        #expect(try statuses(1298152) == ["NS", "1st Innings", "Innings Break", "2nd Innings", "Int.", "Aban."])
        #expect(try statuses(1359519) == ["NS", "1st Innings", "Int.", "Aban."])
        let match = try DataDirectory.match(1322280)
        let done = SportMonksFixtureBuilder(match: match).fixture(at: match.finalPosition)
        #expect(done.status == .abandoned && done.note == "No result" && done.winnerTeamId == nil)
    }

    @Test func duckworthLewisTarget() throws {
        let match = try DataDirectory.match(1144504)
        let builder = SportMonksFixtureBuilder(match: match)
        let chase = builder.fixture(at: .inProgress(match.innings[0].deliveryCount + 30))
        #expect(chase.status == .innings(2))
        #expect(chase.note == "Target 302 runs from 40 overs")
        #expect(chase.visitorteamDlData == SportMonksDLData(score: 302, overs: 40, wicketsOut: nil))
        #expect(chase.localteamDlData == SportMonksDLData())
        #expect(chase.rpcTarget == .int(302) && chase.rpcOvers == .int(40))
        let first = builder.fixture(at: .inProgress(30))
        #expect(first.visitorteamDlData == SportMonksDLData() && first.rpcTarget == .null)
        #expect(builder.fixture(at: match.finalPosition).note == "India won by 89 runs (D/L method)")

        let partOver = try DataDirectory.match(1415744)
        let revised = SportMonksFixtureBuilder(match: partOver).fixture(at: partOver.finalPosition)
        #expect(revised.visitorteamDlData?.overs == 11.2 && revised.rpcOvers == .double(11.2))
        #expect(revised.note == "Australia won by 28 runs (D/L method)")
        let tie = try DataDirectory.match(1322277)
        #expect(SportMonksFixtureBuilder(match: tie).fixture(at: tie.finalPosition).note == "Match tied (D/L method)")
        let chaseDL = try DataDirectory.match(1370353)
        #expect(SportMonksFixtureBuilder(match: chaseDL).fixture(at: chaseDL.finalPosition).note
                == "Chennai Super Kings won by 5 wickets (D/L method)")
    }

    @Test func doubleSuperOver() throws {
        #expect(try statuses(1216517) == ["NS", "1st Innings", "Innings Break", "2nd Innings", "Innings Break",
                                          "Super Over", "Innings Break", "Super Over", "Innings Break", "Super Over",
                                          "Innings Break", "Super Over", "Finished"])
        let match = try DataDirectory.match(1216517)
        let builder = SportMonksFixtureBuilder(match: match)
        let done = builder.fixture(at: match.finalPosition)
        #expect(done.note == "Match tied (Kings XI Punjab won the Super Over)")
        #expect(done.superOver == true)
        #expect(done.winnerTeamId == builder.teamId("Kings XI Punjab"))
        #expect(done.runs?.map(\.scoreboard) == ["S1", "S2", "S3", "S4", "S5", "S6"])
        // Second innings of the first super over chases the first one's score + 1.
        let firstSO = done.runs![2]
        let secondSOStart = match.innings[0...2].reduce(0) { $0 + $1.deliveryCount } + 1
        #expect(builder.fixture(at: .inProgress(secondSOStart)).note == "Target \(firstSO.score + 1) runs")
        #expect(builder.fixture(at: .inProgress(secondSOStart)).status == .superOver)
    }

    @Test func tiedSuperOverAndBowlOut() throws {
        let final = try DataDirectory.match(1144530)
        #expect(SportMonksFixtureBuilder(match: final).fixture(at: final.finalPosition).note
                == "Match tied (England won the Super Over)")
        let bowlOut = try DataDirectory.match(287862)
        let done = SportMonksFixtureBuilder(match: bowlOut).fixture(at: bowlOut.finalPosition)
        #expect(done.note == "Match tied (India won the bowl-out)")
        #expect(done.superOver == false)
    }

    /// A Test replays its days: per day lunch after a third of its deliveries, tea after two thirds,
    /// stumps at its end (not the last day's), each stumps numbered with the day its last ball was bowled.
    @Test(arguments: [1152848, 1426557]) func aTestMatchHasItsDays(id: Int) throws {
        let match = try DataDirectory.match(id)
        let days = match.info.dates.count
        #expect(days >= 4)
        let builder = SportMonksFixtureBuilder(match: match)
        let all = try statuses(id, days: true)
        #expect(all.filter { $0.hasPrefix("Stump Day ") } == (1..<days).map { "Stump Day \($0)" })
        #expect(all.count { $0 == "Lunch" } == days && all.count { $0 == "Tea Break" } == days)
        for position in match.replayTimeline() where position.phase == .stumps {
            let fixture = builder.fixture(at: position)
            guard case .stumps(let day) = fixture.status else { Issue.record("\(position): \(fixture.status)"); continue }
            let last = try #require(fixture.balls?.compactMap(\.updatedAt).max())
            #expect(last.hasPrefix(match.info.dates[day - 1]), "day \(day)'s last ball was bowled on its date")
            #expect(fixture.live == true)
        }
        #expect(MatchDays(match: match).dayNumber(afterDeliveries: match.totalDeliveries) == days)
    }

    @Test func aOneDayMatchHasNoDays() throws {
        for id in [1304076, 1144504] {
            let timeline = try DataDirectory.match(id).replayTimeline()
            #expect(!timeline.contains { [.lunch, .tea, .stumps].contains($0.phase) }, "\(id)")
        }
    }

    @Test func testMatchDeclarationAndFourthInnings() throws {
        #expect(try statuses(1426557) == ["NS", "1st Innings", "Innings Break", "2nd Innings", "Innings Break",
                                          "3rd Innings", "Innings Break", "4th Innings", "Finished"])
        let match = try DataDirectory.match(1426557)
        let builder = SportMonksFixtureBuilder(match: match)
        let counts = match.innings.map(\.deliveryCount)
        let afterThird = counts[0] + counts[1] + counts[2]
        let declared = builder.fixture(at: ReplayPosition(deliveries: afterThird, phase: .inningsBreak))
        let third = try #require(declared.runs?[2])
        #expect(declared.note == "Australia declared at \(third.score)/\(third.wickets)")
        let fourth = builder.fixture(at: .inProgress(afterThird + 1))
        let runs = try #require(fourth.runs)
        #expect(fourth.note == "Target \(runs[0].score + runs[2].score - runs[1].score + 1) runs")
        #expect(fourth.followOn == false)
        #expect(fourth.totalOversPlayed == nil)
        #expect(builder.fixture(at: match.finalPosition).note == "Match drawn")
        let ashes = try DataDirectory.match(1152848)
        #expect(SportMonksFixtureBuilder(match: ashes).fixture(at: ashes.finalPosition).note == "England won by 1 wicket")
    }

    @Test func ballNumbersAndIdsAreStable() throws {
        let match = try DataDirectory.match(1144530)
        let a = SportMonksFixtureBuilder(match: match).fixture(at: .inProgress(8))
        let b = SportMonksFixtureBuilder(match: match).fixture(at: .inProgress(8))
        #expect(a == b)
        let balls = try #require(a.balls)
        // Over 0 starts with a wide: it carries the number of the next legal ball, 0.1.
        #expect(balls.map(\.ball) == [0.1, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1.1])
        #expect(balls[0].score.name == "1 Wide" && balls[0].score.ball == false && balls[0].score.runs == 1)
        #expect(balls.map(\.id) == (1...8).map { 1144530 * 10_000 + $0 })
        #expect(a.localteamId != a.visitorteamId)
        #expect(a.lineup?.count == 22)
    }
}
