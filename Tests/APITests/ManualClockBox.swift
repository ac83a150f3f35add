import Foundation
import Runtime
import SharedTestSupport

/// A manual clock starting at the real time (so DB rows and tokens look current).
enum ManualClockBox {
    static func make() -> ManualWallClock { ManualWallClock(Date()) }
}
