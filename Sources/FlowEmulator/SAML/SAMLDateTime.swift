import FlowEmulatorData
import Foundation

/// The `xs:dateTime` values of SAML (`2026-11-24T10:52:26Z`, fractions of a second and offsets allowed; a time zone
/// is required).
enum SAMLDateTime {
    /// The date `text` stands for; `nil` when it is not an `xs:dateTime` with a time zone.
    static func parse(_ text: String) -> Date? {
        let scalars = Array(text.unicodeScalars)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= scalars.count else { return nil }
            var value = 0
            for scalar in scalars[position..<(position + digits)] {
                guard let digit = XMLCharacters.digit(scalar, hexadecimal: false) else { return nil }
                value = value * 10 + Int(digit)
            }
            position += digits
            return value
        }
        func skip(_ scalar: Unicode.Scalar) -> Bool {
            guard position < scalars.count, scalars[position] == scalar else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2), skip("T"),
            let hour = number(2), skip(":"), let minute = number(2), skip(":"), let second = number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var fraction = 0.0
        if skip(".") {
            var scale = 0.1
            let start = position
            while position < scalars.count, let digit = XMLCharacters.digit(scalars[position], hexadecimal: false) {
                fraction += Double(digit) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if skip("Z") {
            offset = 0
        } else if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" {
            let sign = scalars[position] == "-" ? -1 : 1
            position += 1
            guard let hours = number(2), skip(":"), let minutes = number(2), hours <= 14, minutes < 60 else {
                return nil
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == scalars.count else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// `date` as SAML writes it, in UTC to the second, for messages.
    static func format(_ date: Date) -> String {
        date.ISO8601Format()
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
