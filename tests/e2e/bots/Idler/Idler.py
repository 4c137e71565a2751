"""Test bot: sets a few rates and calls go() every turn, never fires (the benchmark's trivial
bot: all of its cost per turn is the official Bot API's)."""

from robocode_tank_royale.bot_api import Bot


class Idler(Bot):
    def run(self) -> None:
        while self.running:
            self.turn_rate = 5
            self.gun_turn_rate = 10
            self.radar_turn_rate = 20
            self.target_speed = 4
            self.go()


if __name__ == "__main__":
    Idler().start()
