"""Test bot: circles with gun and radar fixed to the body and fires power 3 at every scan (fire
assist aims it), so 1v1 rounds end within a few hundred turns."""

from robocode_tank_royale.bot_api import Bot
from robocode_tank_royale.bot_api.events import ScannedBotEvent


class Spinner(Bot):
    def run(self) -> None:
        while self.running:
            self.turn_rate = 10
            self.target_speed = 3
            self.go()

    def on_scanned_bot(self, scanned_bot_event: ScannedBotEvent) -> None:
        self.set_fire(3)


if __name__ == "__main__":
    Spinner().start()
