import Testing
@testable import Runtime

@Suite struct BackoffTests {
    @Test func doublesUpToTheCap() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        #expect((1...6).map { backoff.delay(afterFailures: $0) }
            == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(1))
    }

    @Test func otherMultipliersGrowByTheirFactor() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(5), multiplier: 1.5)
        #expect((1...5).map { backoff.delay(afterFailures: $0) }
            == [.seconds(1), .milliseconds(1500), .milliseconds(2250), .milliseconds(3375), .seconds(5)])
        #expect(Backoff(initial: .seconds(2), maximum: .seconds(5), multiplier: 1).delay(afterFailures: 7) == .seconds(2))
    }

    @Test func equalJitterStaysBetweenHalfAndTheFullDelay() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8))
        #expect(backoff.delay(afterFailures: 3, random: 0) == .seconds(2))
        #expect(backoff.delay(afterFailures: 3, random: 1) == .seconds(4))
        #expect(backoff.delay(afterFailures: 3, random: 0.5) == .seconds(3))
    }

    @Test func nextCountsFailuresAndResetStartsOver() {
        var backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(1))
        #expect(backoff.next() == .milliseconds(50))
        #expect(backoff.next() == .milliseconds(100))
        backoff.reset()
        #expect(backoff.next() == .milliseconds(50))
    }
}
