import Cricket
import Matches

extension MatchStore.Row {
    /// The row of `fixture`: its card, whether it is live, whether it is at close of play.
    init(_ fixture: SportMonksFixture) {
        self.init(card: MatchCardBuilder.card(fixture), isLive: MatchCardBuilder.isLive(fixture.status),
                  closeOfPlay: fixture.status.isCloseOfPlay)
    }
}
