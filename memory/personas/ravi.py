"""Ravi Menon: a backend developer in Berlin with an on-call rota, strong editor opinions and a job change."""

from __future__ import annotations

from .spec import PersonaSpec, parse_episodes, parse_facts, playbook

EPISODES = parse_episodes("""
06-01 09:02 #intro Hey, Ravi here. Backend dev, living in Kreuzberg in Berlin. I want somewhere to dump context so I stop re-explaining my setup to every tool.
06-01 09:10 #parcelbird I work at Parcelbird, a delivery logistics startup, on the routing team. Mostly Python services.
06-01 09:18 #thinkpad Work machine is a ThinkPad X1 Carbon gen 11 running Fedora 40.
06-01 22:40 Why does pip take forever to resolve dependencies on our monorepo?
06-02 08:55 #vscode Editor-wise I'm on VS Code with the Vim extension, which is the worst of both worlds honestly.
06-02 13:30 #lead_wrong Jonas is my team lead, he'll be the one approving my leave.
06-03 10:05 What's the fastest way to profile a slow FastAPI endpoint in production without restarting it?
06-03 18:20 #veggie I'm vegetarian, so when you suggest team lunch places keep that in mind.
06-04 07:45 #cycle I cycle to the office, it's 20 minutes along the canal, unless it's pouring.
06-04 21:15 Any recommendations for a lightweight Postgres GUI on Linux?
06-05 11:40 #oncall_4 We have an on-call rota at Parcelbird, I'm primary one week in four.
06-05 11:55 What should be in an on-call handover note? Mine are chaos.
06-06 14:10 #fish My shell is fish, I gave up on zsh plugins years ago.
06-06 14:25 #wezterm Terminal is WezTerm, configured in Lua, which I kind of love.
06-07 12:00 Went bouldering at Berta Block, my forearms are destroyed.
06-07 12:05 #bouldering I boulder twice a week, usually Tuesday and Saturday.
06-08 19:30 How do I get WezTerm to use a different font for italics?
06-09 09:20 #ci_flaky The integration tests on CI keep timing out, always the ones talking to Postgres.
06-09 16:45 #ci_steps The ritual for flaky CI: rerun only the failed job, check the Postgres service container logs for the health check, and if it's slow bump the health-check retries in the workflow, not the test timeout.
06-09 17:10 #ci_ok_1 Reran just the failed job and added two health-check retries, that worked, green now.
06-10 08:30 #no_early I'm useless before 10am, please never suggest I book meetings earlier than that.
06-10 15:00 Is it worth learning Rust properly or should I go deeper on Go?
06-11 20:20 #rust_side Started a side project in Rust, a terminal log viewer called tinylog.
06-12 10:15 How do I make clippy stop complaining about needless borrows in tests only?
06-13 11:30 #gruvbox Gruvbox dark everywhere please, editor, terminal, even Slack if it let me.
06-14 16:40 Flatmate Lukas is moving out in August, I need to find someone or take over the whole lease.
06-14 16:45 #flat I share a two room flat in Kreuzberg with Lukas, near Görlitzer Park.
06-15 09:50 #moonlander Typing this on my ZSA Moonlander, still getting used to the thumb clusters.
06-16 14:05 What's a good layer layout for programming symbols on a split keyboard?
06-17 10:30 #nvim_try Trying Neovim properly this week, using LazyVim as a starting point.
06-17 22:10 LazyVim is ridiculous, it's like someone read my mind.
06-18 09:40 How do I get the Python LSP in Neovim to use the project's virtualenv?
06-19 13:15 #german My German is around B1, I take evening classes on Mondays at the Volkshochschule.
06-20 18:00 Can you quiz me on German separable verbs sometime?
06-21 11:20 #oncall_week_1 On call this week. Quiet so far, touch wood.
06-22 03:10 #disk_page Got paged at 3am, disk full on one of the routing workers.
06-22 03:40 #disk_steps What I did for the disk-full page: check which volume with df -h, run docker system prune on the worker, truncate the old app logs, and if it's still above 90% expand the volume in the console.
06-22 03:55 #disk_ok_1 Prune and log cleanup did the trick, down to 61%.
06-23 10:00 Wrote the postmortem for the disk page. Root cause: log rotation was never configured for the new worker image.
06-24 19:30 #espresso I drink way too much espresso. Two at home, two at the office.
06-25 08:50 #nvim_main Okay, Neovim is my main editor now. Uninstalled the VS Code Vim extension out of spite.
06-26 12:40 What's the Neovim equivalent of VS Code's multi-cursor?
06-27 15:20 #team_lunch Team lunch at the Vietnamese place on Oranienstraße, they have great tofu.
06-28 10:45 How do I keep my dotfiles in sync between two machines without symlink hell?
06-29 14:00 #dotfiles Dotfiles are now in a repo managed with chezmoi.
06-30 20:15 Is there a good way to preview markdown in Neovim without a browser?
07-01 09:30 #lead_fix Correction: Jonas was never my lead, he's on the payments team. My lead is Priya.
07-01 09:35 #priya Priya runs the routing team, she's great, very direct.
07-02 11:10 Priya wants us to move the routing service from Python to Go over the next year. Thoughts?
07-03 17:45 #go_learn I'm learning Go for work, going through Let's Go by Alex Edwards.
07-04 10:20 How do Go contexts work with timeouts across goroutines?
07-05 16:30 #nvim_break Updated all my Neovim plugins and now treesitter highlighting is gone and half the keymaps error on startup.
07-05 17:00 #nvim_steps The fix for a broken plugin update: run :Lazy restore to go back to the lockfile, delete ~/.local/share/nvim/lazy cache if it still fails, then update plugins one at a time to find the culprit and pin it.
07-05 17:20 #nvim_ok_1 Lazy restore from the lockfile, that worked, editor's back.
07-06 13:00 Found the culprit, a treesitter parser update. Pinned it.
07-07 09:15 What's the difference between a buffered and unbuffered channel in practice?
07-08 20:40 Finished chapter five of Let's Go. The HTTP handler chapter finally made middleware click.
07-09 11:25 #ci_flake_2 CI timing out on the Postgres tests again. Reran the failed job with extra health-check retries, still broken. Same test hangs every time.
07-09 15:50 #ci_real_bug Turned out it was a real deadlock in our test fixtures, not the runner. Fixed the fixture.
07-10 18:10 Lukas confirmed he's moving out on August 15.
07-11 12:30 How much does a Berlin two-room flat cost if I keep the whole lease?
07-12 10:40 #keep_flat Decided to keep the whole flat myself and turn Lukas's room into an office.
07-13 16:15 I need a standing desk that fits in a small room. Ideas?
07-14 09:00 #pihole Set up a Raspberry Pi 4 running Pi-hole on the home network. Ads, begone.
07-15 21:30 Pi-hole is blocking the Deutsche Bahn app. How do I whitelist a domain?
07-16 13:20 #oncall_week_2 On call again, second time this quarter.
07-17 02:50 #disk_page_2 Another disk-full page at 3am, the batch worker this time. Pruned docker and truncated logs but no luck, the volume is full of legit data.
07-17 03:30 Expanded the volume from 100 to 200 GB and it's fine. Need a proper fix.
07-18 11:00 #log_rotation Added log rotation to every worker image so the disk pages stop.
07-19 15:45 Anyone know a good bike shop in Kreuzberg? My chain keeps slipping.
07-20 19:00 #purple Bouldering session was great, finally sent the purple V4 in the cave.
07-21 10:30 What's the idiomatic way to return errors with context in Go? fmt.Errorf with %w?
07-22 17:15 #headphones Got Sony WH-1000XM5 headphones for the open office. The noise cancelling is black magic.
07-23 08:40 Is it weird to write tests in Go without a framework? Everyone says testify.
07-24 14:30 #monitor Ordered an LG 27 inch 4K monitor for the new office room.
07-25 12:10 How do I get Fedora to do fractional scaling properly on a 4K screen?
07-26 16:50 #sister My sister Anjali lives in Bangalore, she's a data scientist. We talk shop way too much.
07-27 11:35 Anjali says I should look at DuckDB for the log viewer. She might be right.
07-28 09:25 #oncall_6 Good news, the team grew, so from August on-call is one week in six instead of four.
07-29 20:00 What's a good Rust crate for parsing log lines fast? regex or nom?
07-30 13:40 #tinylog_duckdb tinylog now uses DuckDB under the hood for queries. Anjali was right.
07-31 18:30 Ugh, recruiters again. Three LinkedIn messages today.
08-01 10:10 #helio_recruiter One of them is actually interesting: Helio Health, platform team, Go and Kubernetes.
08-02 15:20 What questions should I ask in a platform engineering interview?
08-03 12:45 #parents My parents live in Kochi, I try to fly home once a year.
08-04 09:10 #helio_interview First interview with Helio on Thursday. Nervous.
08-06 17:30 Interview went well I think. They asked a lot about incident handling.
08-07 20:05 How do I prepare for a system design interview about a rate limiter?
08-08 11:15 #oncall_aug My next on-call week is August 10 to August 17.
08-09 16:40 Lukas's last box is gone. The flat is weirdly quiet.
08-10 10:30 On call starts today. Snacks stocked, laptop charged.
08-11 23:55 #ci_flake_3 CI is flaky again but this time it really is the runner: reran just the failed job with the health-check retries and that worked.
08-12 14:20 Is there a way to get PagerDuty to only call me and not text as well?
08-14 10:00 #helio_onsite Final round at Helio Health tomorrow, four interviews back to back.
08-15 19:45 Done. Exhausted. They said I'd hear back next week.
08-16 12:30 The office room is set up: standing desk, the LG monitor and the Moonlander. Feels like a real job.
08-17 18:00 On-call week over, only two pages. Small victories.
08-19 10:25 #helio_offer Helio Health made me an offer! Senior backend engineer on the platform team.
08-20 09:40 How do I negotiate a salary offer in Germany without being awkward?
08-21 16:10 #negotiate Negotiated a bit and they came up. Signing tomorrow.
08-22 11:00 #notice Signed with Helio. Gave notice at Parcelbird, my last day is September 30.
08-23 14:50 Priya was really nice about me leaving. Feel a bit guilty.
08-24 20:30 Should I do a proper handover doc for the routing service? What goes in it?
08-26 10:15 #blue_card My Blue Card is valid until March 31, 2028, so switching jobs needs a notice to the Ausländerbehörde.
08-27 13:00 What does the Ausländerbehörde need when a Blue Card holder changes employer?
08-28 18:40 #nvim_break_2 Plugin update broke Neovim again, the LSP won't attach. Ran Lazy restore, deleted the cache, no luck, it's still dead.
08-29 10:05 #mason Turned out Mason installed a broken pyright. Reinstalling by hand fixed it.
08-30 15:20 Is it dumb to spend a Saturday rewriting my Neovim config from scratch?
08-31 19:10 #config_rewrite Rewrote the Neovim config from scratch in about 300 lines. No regrets.
09-01 09:00 #handover Working on the handover doc for the routing service. 14 pages and counting.
09-02 12:35 What's the German word for handover? Übergabe? My teammates laughed at me.
09-03 17:20 #climb_trip Bouldering trip to Fontainebleau planned for September 19 to September 21 with the climbing gang.
09-05 10:40 What should I pack for three days of bouldering in Fontainebleau?
09-07 14:15 Helio sent the onboarding info. I get a MacBook Pro M3 on day one.
09-08 09:50 Should I keep my personal dotfiles separate from work ones with chezmoi templates?
09-09 16:30 #chezmoi_templates Set up chezmoi templates so work machines get a different git email.
09-10 11:05 #last_oncall Last on-call week at Parcelbird. Please let it be quiet.
09-12 02:40 #disk_page_3 Disk-full page on the routing DB host, of course. Checked df, pruned docker images, rotated logs: did the trick again, down to 70%.
09-14 13:25 How do you say goodbye to a team without a cringe speech?
09-16 19:00 #skwama Bought new climbing shoes, La Sportiva Skwama. My toes hate me.
09-19 08:30 In Fontainebleau. The sandstone is unreal.
09-21 20:10 Back from Font. Fingers shredded, heart full.
09-23 10:50 Can you summarise what the Parcelbird routing service does, for my handover?
09-25 15:40 #farewell Farewell drinks at Parcelbird on Friday. They got me a cake shaped like a delivery van.
09-30 18:00 Last day at Parcelbird done. Laptop returned, badge returned. Weird feeling.
10-01 09:15 #helio_start First day at Helio Health today! I started on October 1 on the platform team.
10-01 17:30 #macbook Got the MacBook Pro M3, it's now my work laptop. First Mac in ten years.
10-02 10:00 How do I get a Linux-like keyboard layout on macOS? The Moonlander is fine but the laptop keyboard is confusing.
10-03 14:20 #helio_lead My manager at Helio is Sofia, she ran SRE at a bank before.
10-04 11:45 #k8s The platform team runs everything on Kubernetes on GKE, so I'm learning that fast.
10-05 16:00 What's the difference between a Deployment and a StatefulSet, in one sentence?
10-06 09:30 #zed_try Trying Zed on the Mac because Neovim plus the Mac keyboard is annoying me.
10-07 20:15 Zed's vim mode is surprisingly good. Don't tell anyone.
10-08 12:10 #oncall_helio Helio on-call is one week in eight, follow the sun with the US team, so no 3am pages.
10-09 18:30 Is there a way to share a Zed config between the Mac and the Fedora desktop?
10-10 10:40 #zed_main Honestly, Zed is my main editor now. Neovim only on servers.
10-11 15:05 Did a code review where the PR was 2,000 lines. Please remind me to ask for smaller PRs.
10-12 11:20 #small_prs I prefer small PRs, under 400 lines, and I'll push back on bigger ones.
10-13 19:45 #helm First Helm chart at Helio merged. Templates are the devil.
10-14 08:50 How do I debug a pod stuck in CrashLoopBackOff?
10-15 13:30 #ci_owner Sofia wants me to own the CI runners for the platform team. Bold of her.
10-16 17:10 #ci_flake_helio Helio's CI integration tests timed out on the Postgres step, same pattern as at Parcelbird: reran only the failed job with more health-check retries and that worked.
10-18 12:00 Weekend project: adding a TUI to tinylog with ratatui.
10-19 21:40 How do I handle terminal resize events in ratatui?
10-20 09:20 #light_theme Tried a light theme in Zed during the day because the office is so bright. It's actually nice?
10-21 10:15 Back to Gruvbox dark in the evening though.
10-22 15:35 What's the best way to run Postgres locally on an M3 Mac? Docker or Postgres.app?
10-23 11:50 #postgres_app Went with Postgres.app on the Mac, Docker was eating all the RAM.
10-24 19:05 Bouldering gym has a new comp wall. Got stuck on the slab for an hour.
10-25 14:30 #nixos_try Installed NixOS on my old personal laptop to play with it. Declarative everything.
10-26 16:45 #nixos_flakes NixOS flakes are melting my brain but in a good way.
10-27 10:25 Can Nix replace chezmoi for my dotfiles or is that overkill?
10-28 13:10 #german_b2 Passed the B1 exam! Starting B2 classes in November, still Monday evenings.
10-29 09:40 What's a good German podcast for B2 level, tech or otherwise?
10-30 18:20 #kochi_trip Flying home to Kochi from December 18 to January 3, booked today.
10-31 11:00 Halloween in Berlin is mostly people in Görlitzer Park in wigs. Fine by me.
11-01 15:50 How do I make macOS stop rearranging my spaces?
11-02 10:35 #aerospace Installed AeroSpace as a tiling window manager on the Mac. Finally feels like home.
11-03 14:05 What's a good way to structure Terraform modules for several environments?
11-04 09:15 #terraform Platform team uses Terraform with one module per service and workspaces per environment.
11-05 17:40 Sofia gave me good feedback in my first one-to-one. Relieved.
11-06 12:20 How do I write a Kubernetes admission webhook in Go? Is it sane?
11-07 20:50 #stars tinylog hit 100 stars on GitHub. I'm absurdly happy.
11-08 11:10 Bike chain finally replaced. Shifting is smooth again.
11-09 16:30 #winter_bike Going to take the U-Bahn in winter instead of cycling, the canal path is an ice rink from December.
11-10 09:45 What's a good way to learn Kubernetes networking properly? CNI makes no sense to me.
11-11 13:55 #nvim_server Kept a minimal Neovim config for servers, 40 lines, no plugins.
11-12 18:35 Anjali visited Berlin for a conference, we went to the Vietnamese place with the great tofu.
11-13 10:20 How do you handle a teammate who leaves PRs waiting for a week?
11-14 15:10 #mentor Sofia asked me to mentor the new junior, Emre. Flattered and terrified.
11-15 12:45 What makes a good first month for a junior engineer?
11-16 19:25 #coffee_cut Cutting down to two espressos a day, I've been sleeping badly.
11-17 08:55 #emre_pr Emre's first PR was 40 lines and beautiful. Proud already.
11-18 14:40 Is it worth getting the CKA certification or is it just a badge?
11-19 11:30 #cka Signed up for the CKA exam on January 15, Helio is paying.
11-20 20:05 Going to spend the weekend on Kubernetes networking labs. Wish me luck.
""")

FACTS = parse_facts("""
# key | type | text | source episode labels | key words (_ joins one) [| flags]
name | identity | His name is Ravi and he is a backend developer | intro | Ravi backend
home | identity | Lives in Kreuzberg, Berlin, near Görlitzer Park | intro flat | Kreuzberg Berlin Görlitzer_Park
job_parcelbird | identity | Works at Parcelbird, a delivery logistics startup, on the routing team | parcelbird | Parcelbird routing team
job_helio | identity | Senior backend engineer on the platform team at Helio Health | helio_offer helio_start | Helio_Health platform team | supersedes=job_parcelbird valid_from=2026-10-01
laptop_thinkpad | world | Work laptop is a ThinkPad X1 Carbon running Fedora 40 | thinkpad | ThinkPad X1_Carbon Fedora
laptop_mac | world | Work laptop is a MacBook Pro M3 | macbook | MacBook_Pro M3 | supersedes=laptop_thinkpad
editor_vscode | preference | Main editor is VS Code with the Vim extension | vscode | VS_Code Vim extension
editor_nvim | preference | Main editor is Neovim, set up from LazyVim | nvim_try nvim_main | Neovim LazyVim | supersedes=editor_vscode
editor_zed | preference | Main editor is Zed; Neovim only on servers | zed_main | Zed Neovim servers | supersedes=editor_nvim
oncall_4 | constraint | Primary on-call at Parcelbird one week in four | oncall_4 | on-call one_week_in_four
oncall_6 | constraint | Primary on-call at Parcelbird one week in six | oncall_6 | on-call one_week_in_six | supersedes=oncall_4
oncall_8 | constraint | On-call at Helio one week in eight, follow the sun, no 3am pages | oncall_helio | on-call one_week_in_eight follow_the_sun 3am | supersedes=oncall_6
lead_jonas | identity | His team lead is Jonas | lead_wrong | Jonas lead | retracted_in=lead_fix
lead_priya | identity | His lead at Parcelbird was Priya, who runs the routing team | lead_fix priya | Priya routing team
manager_sofia | identity | His manager at Helio is Sofia, formerly SRE at a bank | helio_lead | Sofia SRE bank
veggie | constraint | Is vegetarian; team lunch suggestions must suit that | veggie | vegetarian lunch
cycle | preference | Cycles to the office along the canal, 20 minutes | cycle | cycle canal 20_minutes
winter_ubahn | preference | Takes the U-Bahn in winter because the canal path turns to ice | winter_bike | U-Bahn winter canal
no_early | constraint | No meetings before 10am | no_early | meetings 10am
fish | preference | Uses the fish shell | fish | fish shell
wezterm | preference | Terminal is WezTerm configured in Lua | wezterm | WezTerm Lua
bouldering | preference | Boulders twice a week, usually Tuesday and Saturday | bouldering | boulder twice Tuesday Saturday
tinylog | world | Side project tinylog is a terminal log viewer in Rust that uses DuckDB | rust_side tinylog_duckdb | tinylog log_viewer Rust DuckDB
gruvbox | preference | Wants Gruvbox dark everywhere: editor, terminal, Slack | gruvbox | Gruvbox dark editor terminal
moonlander | world | Types on a ZSA Moonlander split keyboard | moonlander | ZSA Moonlander
german | identity | Speaks German at B1 and takes Monday evening classes at the Volkshochschule | german | German B1 Monday Volkshochschule
espresso | preference | Drinks a lot of espresso, about four a day | espresso | espresso
dotfiles | world | Dotfiles live in a repo managed with chezmoi | dotfiles | Dotfiles chezmoi
go | world | Is learning Go for work with Let's Go by Alex Edwards | go_learn | Go Let's_Go Alex_Edwards
flat_alone | world | Keeps the whole Kreuzberg flat; Lukas's old room is his office | keep_flat | flat Lukas room office
pihole | world | A Raspberry Pi 4 runs Pi-hole on his home network | pihole | Raspberry_Pi Pi-hole network
log_rotation | world | Every Parcelbird worker image now has log rotation | log_rotation | log_rotation worker image
headphones | world | Has Sony WH-1000XM5 noise-cancelling headphones | headphones | Sony WH-1000XM5 noise
monitor | world | Has an LG 27 inch 4K monitor in his home office | monitor | LG 27 4K monitor
sister | identity | His sister Anjali is a data scientist in Bangalore | sister | Anjali data_scientist Bangalore
parents | identity | His parents live in Kochi | parents | parents Kochi
oncall_aug | world | On-call from August 10 to August 17 | oncall_aug | on-call | valid_from=2026-08-10 valid_to=2026-08-17
blue_card | constraint | Holds a Blue Card valid until March 31, 2028; a job change must be reported | blue_card | Blue_Card | valid_to=2028-03-31
font_trip | world | Bouldering trip to Fontainebleau from September 19 to September 21 | climb_trip | Fontainebleau | valid_from=2026-09-19 valid_to=2026-09-21
k8s | world | Helio's platform runs on Kubernetes on GKE | k8s | Kubernetes GKE
small_prs | preference | Prefers small pull requests, under 400 lines | small_prs | small 400
postgres_app | preference | Runs Postgres locally with Postgres.app on the Mac, not Docker | postgres_app | Postgres.app Docker
fedora | world | Runs Fedora on his personal machines | thinkpad | Fedora
aerospace | preference | Uses AeroSpace as a tiling window manager on the Mac | aerospace | AeroSpace tiling
terraform | world | Helio's platform team uses Terraform, one module per service, workspaces per environment | terraform | Terraform module workspaces
kochi_trip | world | Flying home to Kochi from December 18 to January 3 | kochi_trip | Kochi | valid_from=2026-12-18 valid_to=2027-01-03
cka | world | Sits the CKA exam on January 15, paid for by Helio | cka | CKA | valid_from=2027-01-15
# waiting in review
c_mentor | world | Mentors the new junior engineer Emre | mentor | Emre junior | candidate
c_german_b2 | identity | Passed the B1 German exam and starts B2 classes in November | german_b2 | B1 B2 | candidate
c_coffee_cut | preference | Is cutting down to two espressos a day | coffee_cut | two espressos | candidate
c_helm | world | Merged his first Helm chart at Helio | helm | Helm chart | candidate
c_chezmoi_tpl | world | Chezmoi templates give work machines a different git email | chezmoi_templates | chezmoi templates git email | candidate
c_nvim_server | preference | Keeps a 40-line plugin-free Neovim config for servers | nvim_server | Neovim 40 servers | candidate
c_recruiters | world | Was approached by Helio Health through a recruiter | helio_recruiter | Helio_Health | candidate
c_team_lunch | preference | Likes the Vietnamese place on Oranienstraße for its tofu | team_lunch | Vietnamese Oranienstraße tofu | candidate
c_handover | world | Wrote a 14-page handover doc for the routing service | handover | handover routing 14 | candidate
c_ci_owner | world | Owns the CI runners for the Helio platform team | ci_owner | CI runners | candidate
# proposed contradictions
p_light_theme | preference | Prefers a light theme during the day | light_theme | light theme day | candidate supersedes=gruvbox
p_nixos | world | Runs NixOS on his personal laptop | nixos_try | NixOS personal laptop | candidate supersedes=fedora
""")

PLAYBOOKS = (
    playbook("flaky_ci", "Get a flaky CI run green",
             "integration tests time out on CI at the Postgres step",
             ["Rerun only the failed job, not the whole workflow",
              "Read the Postgres service container logs for the health check",
              "If the database is slow to start, add health-check retries in the workflow file",
              "Never raise the test timeout to hide it"],
             "ci_flaky ci_steps", "ci_ok_1 ci_flake_2 ci_flake_3 ci_flake_helio"),
    playbook("disk_full", "Answer a disk-full page",
             "a host or worker pages because its disk is full",
             ["Find the full volume with df -h", "Run docker system prune on the host",
              "Truncate old application logs",
              "If usage is still above 90%, expand the volume in the cloud console"],
             "disk_page disk_steps", "disk_ok_1 disk_page_2 disk_page_3"),
    playbook("nvim_restore", "Recover Neovim after a bad plugin update",
             "Neovim errors on startup or loses highlighting after updating plugins",
             ["Run :Lazy restore to go back to the versions in the lockfile",
              "If it still fails, delete the ~/.local/share/nvim/lazy cache",
              "Update plugins one at a time to find the culprit and pin it"],
             "nvim_break nvim_steps", "nvim_ok_1 nvim_break_2"),
)

QUESTIONS = (
    ("fact:home", "Which Berlin neighbourhood is his home in?",
     "What park is close to where he lives?"),
    ("fact:job_helio", "Who has he worked for since October?",
     "Which team did he join at Helio?"),
    ("fact:laptop_mac", "What laptop does his employer give him now?",
     "Which MacBook does he use for his job?"),
    ("fact:editor_zed", "Which editor does he write code in these days?",
     "Which text editor replaced his Lua-configured one?"),
    ("fact:oncall_8", "How often is he on call at Helio?",
     "Will he still get 3am pages at the new job?"),
    ("fact:lead_priya", "Who managed the team he was on at the delivery startup?",
     "Which manager was in charge of the routing group?"),
    ("fact:manager_sofia", "Who is his manager after the job switch?",
     "What's the background of his boss at Helio?"),
    ("fact:veggie", "Any dietary needs to consider when picking a restaurant for him?",
     "Does he eat meat?"),
    ("fact:cycle", "How does he get to the office in summer?",
     "How many minutes is his bike ride to work?"),
    ("fact:winter_ubahn", "How does he commute when it's icy?",
     "Why does he leave the bike at home in winter?"),
    ("fact:no_early", "What's the earliest meeting time I can book with him?",
     "Is a 9am sync okay for him?"),
    ("fact:fish", "What command-line shell does he prefer?",
     "Which shell did he pick over zsh?"),
    ("fact:wezterm", "What terminal emulator is he running?",
     "Which console app does he configure with a scripting language?"),
    ("fact:bouldering", "On which days does he boulder?",
     "How often does he hit the climbing gym?"),
    ("fact:tinylog", "What's his hobby coding project in Rust?",
     "Which embedded database does his log viewer rely on?"),
    ("fact:moonlander", "Which ergonomic keyboard is on his desk?",
     "Which split ergonomic board does he own?"),
    ("fact:german", "How good is his German and where does he study it?",
     "What German course does he attend early in the week?"),
    ("fact:dotfiles", "How does he sync his dotfiles between machines?",
     "Which tool manages his dotfiles?"),
    ("fact:go", "Which book is he using to learn Go?",
     "Which programming language is he learning for work?"),
    ("fact:flat_alone", "Does he still have a flatmate in Kreuzberg?",
     "What happened to the second room after Lukas left?"),
    ("fact:pihole", "What blocks ads on his home wifi?",
     "What does the single-board computer at home do?"),
    ("fact:headphones", "What headphones does he wear to block out the open office?",
     "Which noise-cancelling cans does he have?"),
    ("fact:monitor", "What screen is in his home office?",
     "How big and sharp is his external display?"),
    ("fact:sister", "What does his sister do for a living?",
     "Which relative lives in India and works with data?"),
    ("fact:parents", "Which city do his mum and dad live in?",
     "Which city does he visit to see his mum and dad?"),
    ("fact:blue_card", "Until when can he stay on his residence permit?",
     "What immigration paperwork matters when he switches employer?"),
    ("fact:font_trip", "When is the climbing trip to France?",
     "Where did the climbing gang go in September?"),
    ("fact:k8s", "What does the new company's infrastructure run on?",
     "Which Google cloud Kubernetes service does his team use?"),
    ("fact:small_prs", "How large should a code review he receives be?",
     "What is his limit on changes per pull request?"),
    ("fact:postgres_app", "How does he run Postgres on his Apple laptop?",
     "Why did he stop using containers for local SQL?"),
    ("fact:aerospace", "How does he manage windows on macOS?",
     "What tool tiles his apps on the Apple laptop?"),
    ("fact:terraform", "How are the Terraform modules organised at his current job?",
     "Do they split environments with workspaces?"),
    ("fact:kochi_trip", "When is he travelling to India for the holidays?",
     "Where is he flying over Christmas and New Year?"),
    ("fact:cka", "When is his Kubernetes administrator exam?",
     "Who is paying for his admin exam?"),
    ("pb:flaky_ci", "Integration tests keep timing out in the pipeline, what should I try?",
     "How do I handle a database check that hangs the build?"),
    ("pb:disk_full", "I got paged because a disk filled up on a box, what's the routine?",
     "What are the steps when a server's disk has no space left?"),
    ("pb:nvim_restore", "My editor broke after updating extensions, how do I roll back?",
     "Treesitter highlighting vanished after an upgrade, what do I do?"),
    ("ep:disk_page", "When was he first woken up by a disk-full alert?",
     "Which worker ran out of space in the middle of the night in June?"),
    ("ep:ci_real_bug", "Which bug in the test fixtures was behind the July hangs?",
     "Was the runner really to blame for the stuck suite?"),
    ("ep:helio_offer", "What position was he offered in August?",
     "When did Helio say yes to hiring him?"),
    ("ep:notice", "When did he resign from Parcelbird?",
     "When does his time at Parcelbird end?"),
    ("ep:farewell", "What did his old colleagues give him when he left?",
     "What form did the goodbye cake take?"),
    ("ep:stars", "How many people starred his log viewer?",
     "What milestone did tinylog reach in November?"),
    ("ep:skwama", "Which climbing shoes did he buy?",
     "What new footwear is hurting his toes?"),
    ("ep:negotiate", "Did the negotiating pay off before he signed?",
     "How did the pay negotiation go?"),
    ("ep:mason", "What was wrong with pyright in late August?",
     "How did he fix the type checker install?"),
    ("ep:nixos_flakes", "How is he finding NixOS?",
     "What is confusing him about Nix?"),
    ("ep:emre_pr", "How did Emre's first contribution go?",
     "Was his mentee Emre's opening change any good?"),
    ("ep:purple", "Which route did he finally climb in the cave section?",
     "What bouldering grade did he send in July?"),
    ("ep:config_rewrite", "Did he ever start his Neovim setup over?",
     "How long was his rewritten config?"),
)

PERSONA = PersonaSpec(
    user_id="dev-ravi", slug="ravi", name="Ravi Menon",
    summary="Backend developer in Berlin; editors and on-call rotas; Parcelbird → Helio Health.",
    episodes=EPISODES, facts=FACTS, playbooks=PLAYBOOKS, questions=QUESTIONS)
