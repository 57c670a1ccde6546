// BuildReport and friends: what frontier-worker sends frontierd for each
// kind of fetch result.
#include "worker/report.h"

#include <gtest/gtest.h>

#include <string>

namespace worker {
namespace {

FetchResult Answer(long status, std::string url = "http://h/p") {
  FetchResult r;
  r.url = url;
  r.final_url = url;
  r.status = status;
  r.elapsed_ms = 42;
  return r;
}

// Without the policy options (--no-report-status), as every frontierd
// before issue 8 takes them.
Options Plain() {
  Options o;
  o.report_status = false;
  return o;
}

TEST(ReportTest, FetchedPageAddsLinksThenConfirms) {
  Options o = Plain();
  auto commands = BuildReport(Answer(200), {"http://h/a", "http://x/"}, o);
  EXPECT_EQ(commands, (std::vector<Command>{
                          {"MADD", "http://h/p", "http://h/a", "http://x/"},
                          {"CONFIRM", "http://h/p"}}));
  EXPECT_EQ(BuildReport(Answer(204), {}, o),
            (std::vector<Command>{{"CONFIRM", "http://h/p"}}));
}

TEST(ReportTest, DefinitiveAnswersAreConfirmedWithoutLinks) {
  Options o = Plain();
  for (long status : {404L, 410L, 403L, 301L, 304L}) {
    EXPECT_EQ(Classify(Answer(status)), Outcome::kFinal) << status;
    EXPECT_EQ(BuildReport(Answer(status), {"http://h/ignored"}, o),
              (std::vector<Command>{{"CONFIRM", "http://h/p"}}))
        << status;
  }
  FetchResult loop = Answer(302);
  loop.error = CURLE_TOO_MANY_REDIRECTS;
  EXPECT_EQ(Classify(loop), Outcome::kFinal);
}

TEST(ReportTest, TransientErrorsFailWithADelay) {
  Options o = Plain();
  o.retry_delay = 60;
  FetchResult refused = Answer(0);
  refused.error = CURLE_COULDNT_CONNECT;
  EXPECT_EQ(BuildReport(refused, {}, o),
            (std::vector<Command>{{"FAIL", "http://h/p", "DELAY", "60"}}));
  for (long status : {500L, 502L, 503L, 429L, 408L}) {
    EXPECT_EQ(Classify(Answer(status)), Outcome::kTransient) << status;
  }
  FetchResult busy = Answer(503);
  busy.retry_after = "120";
  EXPECT_EQ(BuildReport(busy, {}, o),
            (std::vector<Command>{{"FAIL", "http://h/p", "DELAY", "120"}}));
  o.retry_delay = 0.25;
  EXPECT_EQ(BuildReport(Answer(500), {}, o),
            (std::vector<Command>{{"FAIL", "http://h/p", "DELAY", "0.25"}}));
}

TEST(ReportTest, RetryAfterInBothFormsAndBadValues) {
  FetchResult r = Answer(503);
  r.retry_after = "30";
  EXPECT_EQ(RetryDelay(r, 60), 30);
  r.retry_after = "999999999";
  EXPECT_EQ(RetryDelay(r, 60), 86400);
  r.retry_after = "Wed, 21 Oct 2015 07:28:00 GMT";  // in the past
  EXPECT_EQ(RetryDelay(r, 60), 0);
  r.retry_after = "Fri, 01 Jan 2100 00:00:00 GMT";
  EXPECT_EQ(RetryDelay(r, 60), 86400);
  r.retry_after = "soon";
  EXPECT_EQ(RetryDelay(r, 60), 60);
  r.retry_after = "-5";
  EXPECT_EQ(RetryDelay(r, 60), 60);
}

TEST(ReportTest, RedirectTargetIsAddedAndConfirmedToo) {
  Options o = Plain();
  FetchResult r = Answer(200, "http://h/old");
  r.final_url = "http://h/new";
  r.redirects = 1;
  EXPECT_EQ(BuildReport(r, {"http://h/link"}, o),
            (std::vector<Command>{
                {"MADD", "http://h/old", "http://h/new", "http://h/link"},
                {"CONFIRM", "http://h/old"},
                {"CONFIRM", "http://h/new"}}));
}

TEST(ReportTest, ReportStatusAddsThePolicyOptionsByDefault) {
  Options o;
  EXPECT_EQ(BuildReport(Answer(404), {}, o),
            (std::vector<Command>{
                {"CONFIRM", "http://h/p", "STATUS", "404", "FETCH-MS", "42"}}));
  FetchResult robots = Answer(200, "http://h/robots.txt");
  robots.body = "User-agent: *\nDisallow: /private\n";
  EXPECT_EQ(
      BuildReport(robots, {}, o),
      (std::vector<Command>{{"CONFIRM", "http://h/robots.txt", "STATUS", "200",
                             "FETCH-MS", "42", "BODY", robots.body}}));
  FetchResult busy = Answer(429);
  busy.retry_after = "Fri, 01 Jan 2100 00:00:00 GMT";
  o.retry_delay = 60;
  EXPECT_EQ(
      BuildReport(busy, {}, o),
      (std::vector<Command>{{"FAIL", "http://h/p", "DELAY", "86400", "STATUS",
                             "429", "RETRY-AFTER", busy.retry_after}}));
}

TEST(ReportTest, HandBackIsReleaseUnlessTurnedOff) {
  Options o;
  EXPECT_EQ(HandBack("http://h/p", o), (Command{"RELEASE", "http://h/p"}));
  o.release = false;  // --no-release, for an older frontierd
  EXPECT_EQ(HandBack("http://h/p", o), (Command{"FAIL", "http://h/p"}));
}

TEST(ReportTest, TheNoFlagsTurnThePolicyOptionsOff) {
  std::string name = "frontier-worker", no_status = "--no-report-status",
              no_release = "--no-release";
  char* argv[] = {name.data(), no_status.data(), no_release.data()};
  Options o;
  int exit_code = -1;
  ASSERT_TRUE(ParseOptions(3, argv, &o, &exit_code));
  EXPECT_FALSE(o.report_status);
  EXPECT_FALSE(o.release);
  Options defaults;
  ASSERT_TRUE(ParseOptions(1, argv, &defaults, &exit_code));
  EXPECT_TRUE(defaults.report_status);
  EXPECT_TRUE(defaults.release);
}

TEST(ReportTest, RobotsUrls) {
  EXPECT_TRUE(IsRobotsUrl("http://h/robots.txt"));
  EXPECT_TRUE(IsRobotsUrl("https://h:8443/robots.txt"));
  EXPECT_FALSE(IsRobotsUrl("http://h/dir/robots.txt"));
  EXPECT_FALSE(IsRobotsUrl("http://h/robots.txt?x=1"));
  EXPECT_FALSE(IsRobotsUrl("http://h/"));
}

TEST(ReportTest, HtmlByContentTypeOrFirstBytes) {
  FetchResult r = Answer(200);
  r.content_type = "text/html; charset=utf-8";
  EXPECT_TRUE(LooksLikeHtml(r));
  r.content_type = "image/png";
  r.body = "<html>";
  EXPECT_FALSE(LooksLikeHtml(r));
  r.content_type = "";
  EXPECT_TRUE(LooksLikeHtml(r));
  r.body = "plain text";
  EXPECT_FALSE(LooksLikeHtml(r));
}

}  // namespace
}  // namespace worker
