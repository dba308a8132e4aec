import Testing

@testable import FlowSteps

@Suite("The session step's language tag")
struct SessionLanguageTests {
    @Test(arguments: [
        (["LANG": "de_CH.UTF-8"], "de-CH"),
        (["LC_ALL": "fr_FR@euro", "LANG": "de_CH.UTF-8"], "fr-FR"),
        (["LC_ALL": "", "LANG": "pt_BR"], "pt-BR"),
        (["LANG": "C.UTF-8"], "en-US"),
        (["LC_ALL": "POSIX"], "en-US"),
        ([:], "en-US"),
        (["LANG": "en_US;rm -rf"], "en-US"),
    ])
    func aPOSIXLocaleBecomesABCP47TagOrEnglish(environment: [String: String], tag: String) {
        #expect(SessionConfigurationStep.languageTag(environment: environment) == tag)
    }
}
