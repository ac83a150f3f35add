import Cricket
import Foundation
import Testing

@Suite struct StatusAndScoreTests {
    @Test(arguments: ["NS", "1st Innings", "2nd Innings", "3rd Innings", "4th Innings", "Super Over", "Innings Break",
                      "Lunch", "Tea Break", "Dinner", "Stump Day 1", "Stump Day 5", "Int.", "Delayed", "Postp.",
                      "Cancl.", "Aban.", "Finished"])
    func knownStatusesRoundTrip(raw: String) {
        let status = SportMonksStatus(rawValue: raw)
        #expect(status.rawValue == raw)
        if case .unknown = status { Issue.record("\(raw) should be known") }
    }

    @Test func classification() {
        #expect(SportMonksStatus(rawValue: "NS").phase == .notStarted)
        #expect(SportMonksStatus(rawValue: "Stump Day 3") == .stumps(day: 3))
        #expect(SportMonksStatus(rawValue: "Int.").phase == .inPlay)
        #expect(SportMonksStatus(rawValue: "Cancl") == .cancelled)
        #expect(SportMonksStatus(rawValue: "Finished").phase == .ended)
        #expect(SportMonksStatus(rawValue: "No Result") == .unknown("No Result"))
        #expect(SportMonksStatus(rawValue: "No Result").phase == .ended)
        #expect(SportMonksStatus(rawValue: "Live").phase == .unknown)
    }

    @Test func oversConversions() {
        #expect(SportMonksOvers.overs(fromLegalBalls: 118) == 19.4)
        #expect(SportMonksOvers.overs(fromLegalBalls: 120) == 20)
        #expect(SportMonksOvers.legalBalls(fromOvers: 19.4) == 118)
        #expect(SportMonksOvers.legalBalls(fromOvers: 0.1) == 1)
        #expect(SportMonksOvers.components(of: 18.6) == (18, 6))
    }

    @Test func noBallMarkedAsBallIsNotLegal() {
        let noBallBye = SportMonksScore(id: 114, name: "1 No Ball + 1 Bye", runs: 1, four: false, six: false, bye: 1,
                                        legBye: 0, noball: 1, noballRuns: 1, isWicket: false, ball: true, out: false)
        var score = InningsScore()
        score.add(noBallBye)
        #expect(score == InningsScore(runs: 2, wickets: 0, legalBalls: 0))
    }
}
