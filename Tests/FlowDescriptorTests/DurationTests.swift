import FlowDescriptor
import Testing

/// The one set of `Duration` conversions every target uses: flow-file text both ways, and numbers.
@Suite struct DurationTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("2s", .seconds(2)), ("1.5s", .milliseconds(1500)),
        ("2m", .seconds(120)), ("1.5m", .seconds(90)), ("1h", .seconds(3600)), ("1m30s", .seconds(90)),
        ("1h0m1ms", .milliseconds(3_600_001)), ("0s", .zero), ("24h", .seconds(86_400)),
    ])
    func flowTextParsesEveryUnitAndTheirSums(_ text: String, _ expected: Duration) {
        #expect(Duration.parse(flowText: text) == expected)
    }

    @Test(arguments: [
        "", "5", "5 s", "5sec", "-1s", "s", "1.2.3s", "1e3ms", "24h1ms", "99999999999999999999h",
        // Digits and letters outside ASCII are not a duration's: Arabic-Indic three, a fullwidth s, an accented s.
        "\u{663}s", "3\u{FF53}", "3s\u{301}", ".s", "1.s2",
    ])
    func textThatIsNotADurationOfAtMostADayIsRefused(_ text: String) {
        #expect(Duration.parse(flowText: text) == nil, "`\(text)`")
    }

    @Test(arguments: [
        (Duration.milliseconds(500), "500ms"), (.zero, "0s"), (.seconds(2), "2s"), (.milliseconds(1500), "1.5s"),
        (.seconds(90), "90s"), (.seconds(120), "2m"), (.seconds(3600), "1h"), (.seconds(5400), "90m"),
        (.seconds(7200), "2h"), (.microseconds(1400), "1ms"), (.milliseconds(-500), "-500ms"),
    ])
    func flowTextWritesTheLargestWholeUnit(_ duration: Duration, _ expected: String) {
        #expect(duration.flowText == expected)
    }

    @Test func writtenTextParsesBackToTheSameDuration() {
        for milliseconds in [1, 999, 1000, 1500, 59_999, 60_000, 90_000, 3_600_000, 86_400_000] {
            let duration = Duration.milliseconds(milliseconds)
            #expect(Duration.parse(flowText: duration.flowText) == duration, "\(duration.flowText)")
        }
    }

    @Test func numbersAreMillisecondsToTheMicrosecondAndSecondsForDates() {
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
        #expect(Duration.nanoseconds(1_234_567).milliseconds == 1.235)
        #expect(Duration.milliseconds(1500).timeInterval == 1.5)
        #expect(Duration.seconds(3600).timeInterval == 3600)
        #expect(Duration.milliseconds(2500).saturatingMilliseconds == 2500)
        #expect(Duration.maximumFlowDuration == .seconds(86_400))
    }

    /// A duration from anywhere (not only a flow file) converts without trapping.
    @Test func millisecondsSaturateInsteadOfTrapping() {
        #expect(Duration.seconds(Int64.max).saturatingMilliseconds == 999_999_999_999_999)
        #expect(Duration.seconds(Int64.min).saturatingMilliseconds == -999_999_999_999_999)
        #expect(Duration.seconds(Int64.max).flowText == "999999999999.999s")
    }
}
